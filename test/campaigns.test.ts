import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations } from '../src/db/schema';
import { assignmentSignal } from '../src/domain/assignment/auto-assignment';
import { sweepCampaigns } from '../src/domain/campaigns/schedule';
import { sendCampaignBatch } from '../src/domain/campaigns/sending';
import { campaignStartKey } from '../src/model/campaigns';
import { newEvent } from '../src/model/events';
import {
	api,
	awayFromMinuteBoundary,
	db,
	expectError,
	seedConversation,
	seedCustomFields,
	seedOperator,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	visitorSend,
} from './factories';

interface Campaign {
	id: string;
	status: string;
	sendAt: string | null;
	sendAtLocal: string | null;
	counts: Record<string, number>;
}

/**
 * `n` contacts written straight to D1 in one statement (and each an open widget conversation when asked),
 * created `at`; returns their ids in order.
 */
async function seedContacts(workspaceId: string, n: number, options: { conversations?: boolean; at?: number } = {}) {
	const at = options.at ?? Date.now();
	const ids = Array.from({ length: n }, (_, i) => `ctc_${workspaceId}_${String(i).padStart(5, '0')}`);
	await env.DB.prepare(
		`INSERT INTO contacts (id, workspace_id, custom_fields, created_at, updated_at)
		SELECT value, ?1, '{}', ?2, ?2 FROM json_each(?3)`,
	)
		.bind(workspaceId, at, JSON.stringify(ids))
		.run();
	if (options.conversations) {
		await env.DB.prepare(
			`INSERT INTO conversations (id, workspace_id, contact_id, channel, status, created_at, updated_at, status_changed_at, last_activity_at)
			SELECT 'conv_' || value, ?1, value, 'widget', 'open', ?2, ?2, ?2, ?2 FROM json_each(?3)`,
		)
			.bind(workspaceId, at, JSON.stringify(ids))
			.run();
	}
	return ids;
}

async function createCampaign(token: string, body: Record<string, unknown>): Promise<Campaign> {
	const res = await api(token, 'POST', '/v3/campaigns', {
		name: 'Campaign',
		template: 'Hi {{ contact.name }}!',
		...body,
	});
	expect(res.status, await res.clone().text()).toBe(201);
	return (await res.json()) as Campaign;
}

async function send(token: string, id: string, body: Record<string, unknown> = {}): Promise<Campaign> {
	const res = await api(token, 'POST', `/v3/campaigns/${id}/send`, body);
	expect(res.status, await res.clone().text()).toBe(200);
	return (await res.json()) as Campaign;
}

/** The campaign's status as D1 has it (polled there: the API's rate limit is for people). */
async function statusOf(id: string): Promise<string | undefined> {
	return (await env.DB.prepare('SELECT status FROM campaigns WHERE id = ?').bind(id).first<{ status: string }>())
		?.status;
}

async function recipients(id: string) {
	const { results } = await env.DB.prepare(
		'SELECT contact_id, status, error, conversation_id, replied_at FROM campaign_recipients WHERE campaign_id = ? ORDER BY contact_id',
	)
		.bind(id)
		.all<{
			contact_id: string;
			status: string;
			error: string | null;
			conversation_id: string | null;
			replied_at: number | null;
		}>();
	return results;
}

/** The campaign's messages D1 holds (each room writes its copy shortly after posting). */
async function campaignMessages(id: string) {
	const { results } = await env.DB.prepare(
		'SELECT conversation_id, body FROM messages WHERE client_message_id = ? ORDER BY conversation_id',
	)
		.bind(`campaign:${id}`)
		.all<{ conversation_id: string; body: string }>();
	return results;
}

async function contactWith(token: string, body: Record<string, unknown>): Promise<string> {
	const res = await api(token, 'POST', '/v3/contacts', body);
	expect(res.status, await res.clone().text()).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

async function tag(token: string, contactId: string, name: string) {
	const res = await api(token, 'PUT', `/v3/contacts/${contactId}/tags/${name}`);
	expect(res.status, await res.clone().text()).toBeLessThan(300);
}

describe('campaign audiences', () => {
	it('sends to the tagged audience only, never to a contact that opted out, into its open conversation', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello there');
		const chatting = (
			(await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as { contactId: string }
		).contactId;
		await api(token, 'PATCH', `/v3/contacts/${chatting}`, { name: 'Vera' });
		const ana = await contactWith(token, { name: 'Ana', email: 'ana@example.com' });
		const bob = await contactWith(token, { name: 'Bob', optedOut: true });
		const carla = await contactWith(token, { name: 'Carla' });
		for (const id of [chatting, ana, bob]) await tag(token, id, 'vip');

		const campaign = await createCampaign(token, { audience: { kind: 'filter', tags: ['vip'] } });
		expect(campaign.status).toBe('draft');
		const preview = await api(token, 'POST', `/v3/campaigns/${campaign.id}/preview`, { contactId: ana });
		expect(await preview.json()).toEqual({ contactId: ana, text: 'Hi Ana!', subject: null, audienceSize: 2 });

		await send(token, campaign.id);
		await expect.poll(() => statusOf(campaign.id)).toBe('sent');
		const list = await recipients(campaign.id);
		expect(list.map((r) => r.contact_id).sort()).toEqual([chatting, ana].sort());
		expect(list.every((r) => r.status === 'sent')).toBe(true);
		expect(list.map((r) => r.contact_id)).not.toContain(bob);
		expect(list.map((r) => r.contact_id)).not.toContain(carla);
		// The visitor's open conversation got it, with the unread badge; Ana, who had none, got a new one.
		expect(list.find((r) => r.contact_id === chatting)?.conversation_id).toBe(conversationId);
		await expect.poll(async () => (await campaignMessages(campaign.id)).length).toBe(2);
		const conversation = await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json();
		expect(conversation).toMatchObject({ unreadByContact: 1 });
		expect((await campaignMessages(campaign.id)).map((m) => m.body).sort()).toEqual(['Hi Ana!', 'Hi Vera!']);

		const shown = (await (await api(token, 'GET', `/v3/campaigns/${campaign.id}`)).json()) as Campaign;
		expect(shown.counts).toMatchObject({ targeted: 2, sent: 2, failed: 0, pending: 0, replied: 0 });
	});

	it('selects by custom field, origin and creation time, and by an explicit list', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'], seats: 'number' });
		const pro = await contactWith(token, { name: 'Pro', customFields: { plan: 'pro', seats: 10 } });
		await contactWith(token, { name: 'Free', customFields: { plan: 'free', seats: 10 } });
		const visitor = await startVisitor(workspaceId, { utmSource: 'google', gclid: 'abc' });
		await startVisitorConversation(visitor);
		const old = (await seedContacts(workspaceId, 1, { at: Date.parse('2020-01-01T00:00:00Z') }))[0] as string;

		const audienceSize = async (audience: Record<string, unknown>) => {
			const campaign = await createCampaign(token, { audience });
			const res = await api(token, 'POST', `/v3/campaigns/${campaign.id}/preview`, {});
			return ((await res.json()) as { audienceSize: number }).audienceSize;
		};
		expect(await audienceSize({ kind: 'filter', customFields: { plan: 'pro', seats: 10 } })).toBe(1);
		expect(await audienceSize({ kind: 'filter', customFields: { seats: 10 } })).toBe(2);
		expect(await audienceSize({ kind: 'filter', utmSource: 'google', hasGclid: true })).toBe(1);
		expect(await audienceSize({ kind: 'filter', hasGclid: false })).toBe(3);
		expect(await audienceSize({ kind: 'filter', createdSince: '2021-01-01T00:00:00Z' })).toBe(3);
		expect(await audienceSize({ kind: 'filter' })).toBe(4);
		expect(await audienceSize({ kind: 'contacts', contactIds: [pro, old] })).toBe(2);

		const unknown = await api(token, 'POST', '/v3/campaigns', {
			name: 'x',
			template: 'Hi',
			audience: { kind: 'contacts', contactIds: [pro, 'ctc_nobody'] },
		});
		expect((await expectError(unknown, 422)).message).toContain('audience.contactIds.1');
		const badValue = await api(token, 'POST', '/v3/campaigns', {
			name: 'x',
			template: 'Hi',
			audience: { kind: 'filter', customFields: { plan: 'gold' } },
		});
		expect((await expectError(badValue, 422)).message).toContain('audience.customFields.plan');
		const badTemplate = await api(token, 'POST', '/v3/campaigns', {
			name: 'x',
			template: 'Hi {{ contact.name ',
			audience: { kind: 'filter' },
		});
		expect((await expectError(badTemplate, 422)).message).toContain('template');
		const count = await env.DB.prepare('SELECT count(*) AS n FROM campaigns WHERE workspace_id = ?')
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(count?.n).toBe(7);
	});
});

describe('sending at scale', () => {
	it('a 2,000-contact campaign whose batches are delivered twice still sends exactly 2,000 messages', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const ids = await seedContacts(workspaceId, 2000, { conversations: true });
		const campaign = await createCampaign(token, {
			template: 'Sale for {{ contact.id }}',
			audience: { kind: 'filter' },
		});
		await send(token, campaign.id);
		// The Queue delivers every batch; batches 0, 7 and 19 are delivered twice more, at the same time.
		const again = { workspaceId, campaignId: campaign.id };
		await Promise.all([0, 0, 7, 7, 19, 19].map((batch) => sendCampaignBatch(env, { ...again, batch })));
		// 2,000 rooms' messages: about 45 s alone, nearly three minutes while the whole suite shares two cores with
		// the browser tests' Workers and Chromiums. The wait is for the outcome; the assertions below are the test.
		await expect.poll(() => statusOf(campaign.id), { timeout: 300_000, interval: 500 }).toBe('sent');
		const list = await recipients(campaign.id);
		expect(list).toHaveLength(2000);
		expect(list.filter((r) => r.status === 'sent')).toHaveLength(2000);
		await expect.poll(async () => (await campaignMessages(campaign.id)).length, { timeout: 60_000 }).toBe(2000);
		const messages = await campaignMessages(campaign.id);
		expect(new Set(messages.map((m) => m.conversation_id)).size).toBe(2000);
		expect(messages.map((m) => m.body)).toEqual(ids.map((id) => `Sale for ${id}`));
	}, 330_000);

	it('takes only what the workspace may send this minute, and queues the rest for the next one', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await seedContacts(workspaceId, 30, { conversations: true });
		const campaign = await createCampaign(token, { audience: { kind: 'filter' } });
		// Fixed by hand, as a start would, but with no batch queued: only the call below sends.
		await fixAudience(campaign.id, workspaceId);
		// The limiter counts in minutes of real time: a send across a minute's end would find a fresh budget.
		await awayFromMinuteBoundary();
		const outcome = await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 0 }, 12);
		expect(outcome.sent).toBe(12);
		// The rest waits for the limiter's next window, at most a minute away.
		expect(outcome.deferredSeconds).toBeGreaterThanOrEqual(1);
		expect(outcome.deferredSeconds).toBeLessThanOrEqual(60);
		const list = await recipients(campaign.id);
		expect(list.filter((r) => r.status === 'sent')).toHaveLength(12);
		expect(list.filter((r) => r.status === 'pending')).toHaveLength(18);
		expect(await statusOf(campaign.id)).toBe('sending');
	});
});

/** What a start writes, without queueing anything: the campaign sending, every contact a recipient of batch 0. */
async function fixAudience(campaignId: string, workspaceId: string) {
	const now = Date.now();
	await env.DB.batch([
		env.DB.prepare("UPDATE campaigns SET status = 'sending', started_at = ?, updated_at = ? WHERE id = ?").bind(
			now,
			now,
			campaignId,
		),
		env.DB.prepare(
			`INSERT INTO campaign_recipients (workspace_id, campaign_id, contact_id, batch, status)
			SELECT workspace_id, ?, id, 0, 'pending' FROM contacts WHERE workspace_id = ?`,
		).bind(campaignId, workspaceId),
		env.DB.prepare(
			'UPDATE campaigns SET targeted = (SELECT count(*) FROM campaign_recipients WHERE campaign_id = ?) WHERE id = ?',
		).bind(campaignId, campaignId),
	]);
}

describe('cancelling and opting out', () => {
	// 400 contacts with their conversations seeded first: over the default 30 s under the whole suite's load.
	it('cancel mid-way: what was sent stays sent, the rest is never sent', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await seedContacts(workspaceId, 400, { conversations: true });
		const campaign = await createCampaign(token, { audience: { kind: 'filter' } });
		await send(token, campaign.id);
		// Batch 0 goes out now (whatever the Queue has done meanwhile), then the campaign is cancelled.
		await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 0 });
		const cancelled = await api(token, 'POST', `/v3/campaigns/${campaign.id}/cancel`);
		expect(cancelled.status).toBe(200);
		expect(((await cancelled.json()) as Campaign).status).toBe('cancelled');
		// A batch delivered after the cancel sends nothing.
		expect(await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 3 })).toEqual({
			sent: 0,
			deferredSeconds: null,
		});
		// Whatever batches were in flight finish their claims; then nothing moves.
		await expect.poll(async () => (await recipients(campaign.id)).filter((r) => r.status === 'sending').length).toBe(0);
		const list = await recipients(campaign.id);
		const sent = list.filter((r) => r.status === 'sent').length;
		expect(sent).toBeGreaterThanOrEqual(100);
		expect(sent).toBeLessThan(400);
		expect(list.filter((r) => r.status === 'cancelled')).toHaveLength(400 - sent);
		await new Promise((resolve) => setTimeout(resolve, 2500));
		expect(await campaignMessages(campaign.id)).toHaveLength(sent);
		expect((await recipients(campaign.id)).filter((r) => r.status === 'sent')).toHaveLength(sent);
		await expectError(await api(token, 'POST', `/v3/campaigns/${campaign.id}/cancel`), 409);
		await expectError(await api(token, 'POST', `/v3/campaigns/${campaign.id}/send`, {}), 409);
	}, 120_000);

	it('skips a contact that opted out after the audience was fixed', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const [first, second] = await seedContacts(workspaceId, 2, { conversations: true });
		const campaign = await createCampaign(token, { audience: { kind: 'filter' } });
		await fixAudience(campaign.id, workspaceId);
		const optOut = await api(token, 'PATCH', `/v3/contacts/${second}`, { optedOut: true, optedOutSource: 'link' });
		expect(optOut.status).toBe(200);
		await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 0 });
		const list = await recipients(campaign.id);
		expect(list.map((r) => [r.contact_id, r.status, r.error])).toEqual([
			[first, 'sent', null],
			[second, 'skipped', 'the contact opted out'],
		]);
		expect(await statusOf(campaign.id)).toBe('sent');
		await expect
			.poll(async () => (await campaignMessages(campaign.id)).map((m) => m.conversation_id))
			.toEqual([`conv_${first}`]);
		// A test send to an opted-out contact is refused too.
		await expectError(await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId: second }), 409);
	});
});

describe('scheduling', () => {
	it('starts a campaign scheduled in the workspace time zone when the clock reaches it, not before', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { businessHours: { timeZone: 'America/Sao_Paulo' } });
		await seedContacts(workspaceId, 3, { conversations: true });
		const campaign = await createCampaign(token, { audience: { kind: 'filter' } });
		const scheduled = await send(token, campaign.id, { sendAt: '2030-01-15T09:00' });
		expect(scheduled).toMatchObject({
			status: 'scheduled',
			sendAt: '2030-01-15T12:00:00.000Z',
			sendAtLocal: '2030-01-15T09:00',
			timeZone: 'America/Sao_Paulo',
		});
		// Still editable while scheduled.
		expect(
			(await api(token, 'PATCH', `/v3/campaigns/${campaign.id}`, { template: 'Hello {{ contact.id }}' })).status,
		).toBe(200);

		await sweepCampaigns(env, db, Date.parse('2030-01-15T11:59:00Z'));
		expect(await statusOf(campaign.id)).toBe('scheduled');
		expect(await recipients(campaign.id)).toHaveLength(0);

		await sweepCampaigns(env, db, Date.parse('2030-01-15T12:00:00Z'));
		expect(['sending', 'sent']).toContain(await statusOf(campaign.id));
		await expect.poll(() => statusOf(campaign.id)).toBe('sent');
		expect((await recipients(campaign.id)).map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		// A second sweep at the same time starts nothing again.
		expect(await sweepCampaigns(env, db, Date.parse('2030-01-15T12:00:00Z'))).toBe(0);
		await expectError(await api(token, 'PATCH', `/v3/campaigns/${campaign.id}`, { name: 'Late' }), 409);
		await expectError(await api(token, 'DELETE', `/v3/campaigns/${campaign.id}`), 409);
	});

	it('refuses a time that is not one', async () => {
		const { token } = await seedWorkspace();
		const campaign = await createCampaign(token, { audience: { kind: 'filter' } });
		await expectError(await api(token, 'POST', `/v3/campaigns/${campaign.id}/send`, { sendAt: 'tomorrow' }), 422);
		await expectError(
			await api(token, 'POST', `/v3/campaigns/${campaign.id}/send`, { sendAt: '2030-02-30T09:00' }),
			422,
		);
		expect(await statusOf(campaign.id)).toBe('draft');
	});
});

describe('replies and results', () => {
	it('records who replied, and the report counts replies, conversations and deals won', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hi');
		const contactId = (
			(await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as { contactId: string }
		).contactId;
		const quiet = await contactWith(token, { name: 'Quiet' });
		const campaign = await createCampaign(token, { audience: { kind: 'contacts', contactIds: [contactId, quiet] } });
		await send(token, campaign.id);
		await expect.poll(() => statusOf(campaign.id)).toBe('sent');

		const res = await visitorSend(visitor, conversationId, 'Tell me more', crypto.randomUUID());
		expect(res.status, await res.clone().text()).toBe(201);
		await expect.poll(async () => (await recipients(campaign.id)).filter((r) => r.replied_at !== null).length).toBe(1);

		expect((await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] })).status).toBe(201);
		const created = await api(token, 'POST', '/v3/deals', {
			name: 'Order',
			funnel: 'Sales',
			contactId,
			value: 5000,
			currency: 'BRL',
		});
		expect(created.status, await created.clone().text()).toBe(201);
		const deal = (await created.json()) as { id: string };
		expect((await api(token, 'PATCH', `/v3/deals/${deal.id}`, { status: 'won' })).status).toBe(200);

		const report = await api(token, 'GET', `/v3/reports/campaigns/${campaign.id}`);
		expect(await report.json()).toEqual({
			campaignId: campaign.id,
			name: 'Campaign',
			status: 'sent',
			targeted: 2,
			reach: 2,
			failed: 0,
			skipped: 0,
			replies: 1,
			replyRate: 0.5,
			conversations: 1,
			dealsWon: 1,
			wonValue: [{ currency: 'BRL', valueCents: 5000 }],
		});
		const csv = await api(token, 'GET', `/v3/reports/campaigns/${campaign.id}`, undefined, { Accept: 'text/csv' });
		expect(csv.headers.get('Content-Type')).toContain('text/csv');
		const text = await csv.text();
		expect(text.split('\r\n')).toContain('replies,1');
		expect(text.split('\r\n')).toContain('wonValue.BRL,5000');

		const replied = await api(token, 'GET', `/v3/campaigns/${campaign.id}/recipients?replied=true`);
		expect(((await replied.json()) as { data: Array<{ contactId: string }> }).data.map((r) => r.contactId)).toEqual([
			contactId,
		]);
	});

	it('a test send reaches one contact and is no recipient', async () => {
		const { token } = await seedWorkspace();
		const ana = await contactWith(token, { name: 'Ana' });
		const campaign = await createCampaign(token, { audience: { kind: 'filter' } });
		const res = await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId: ana });
		expect(res.status, await res.clone().text()).toBe(201);
		const sent = (await res.json()) as { conversationId: string; text: string };
		expect(sent.text).toBe('Hi Ana!');
		const messages = await api(token, 'GET', `/v3/conversations/${sent.conversationId}/messages`);
		expect(((await messages.json()) as { data: Array<{ text: string; authorKind: string }> }).data).toMatchObject([
			{ text: 'Hi Ana!', authorKind: 'bot' },
		]);
		expect(await recipients(campaign.id)).toHaveLength(0);
		expect(await statusOf(campaign.id)).toBe('draft');
	});
});

describe('permissions and isolation', () => {
	it('needs crm:access, and another workspace’s campaign is not found on any route', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const campaign = await createCampaign(token, { audience: { kind: 'filter' } });
		const ana = await contactWith(token, { name: 'Ana' });
		const routes: Array<[string, string, unknown?]> = [
			['GET', `/v3/campaigns/${campaign.id}`],
			['PATCH', `/v3/campaigns/${campaign.id}`, { name: 'x' }],
			['POST', `/v3/campaigns/${campaign.id}/send`, {}],
			['POST', `/v3/campaigns/${campaign.id}/cancel`],
			['POST', `/v3/campaigns/${campaign.id}/preview`, {}],
			['POST', `/v3/campaigns/${campaign.id}/test`, { contactId: ana }],
			['GET', `/v3/campaigns/${campaign.id}/recipients`],
			['DELETE', `/v3/campaigns/${campaign.id}`],
		];
		const reader = await seedOperator(workspaceId, ['conversations:read', 'reports:view']);
		for (const [method, path, body] of [...routes, ['GET', '/v3/campaigns'], ['POST', '/v3/campaigns', {}]] as const) {
			await expectError(await api(reader.token, method, path, body), 403);
		}
		const other = await seedWorkspace();
		for (const [method, path, body] of routes) {
			expect((await expectError(await api(other.token, method, path, body), 404)).message).toContain(campaign.id);
		}
		const list = await api(other.token, 'GET', '/v3/campaigns');
		expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(0);
		expect(await statusOf(campaign.id)).toBe('draft');
		const marketer = await seedOperator(workspaceId, ['crm:access']);
		expect((await api(marketer.token, 'GET', `/v3/campaigns/${campaign.id}`)).status).toBe(200);
		await expectError(await api(marketer.token, 'GET', `/v3/reports/campaigns/${campaign.id}`), 403);
		expect((await api(reader.token, 'GET', `/v3/reports/campaigns/${campaign.id}`)).status).toBe(200);
		await expectError(await api(other.token, 'GET', `/v3/reports/campaigns/${campaign.id}`), 404);
	});
});

describe('campaign conversations and auto-assignment', () => {
	it('queue a conversation a campaign opened only when the contact answers, whatever came before', async () => {
		const { workspaceId, operatorId } = await seedWorkspace();
		const opened = await seedConversation(workspaceId);
		const row = await db.select().from(conversations).where(eq(conversations.id, opened)).get();
		const contactId = row?.contactId as string;
		await db
			.update(conversations)
			.set({ startKey: campaignStartKey('cmp_test', contactId) })
			.where(eq(conversations.id, opened));
		const other = await seedConversation(workspaceId);
		const summary = { contactId, channel: 'widget', status: 'open' as const, assigneeId: null, groupId: null };
		const signal = async (event: Parameters<typeof assignmentSignal>[1]) =>
			(await assignmentSignal(db, event))?.kind ?? null;
		const message = (conversationId: string, seq: number, authorKind: 'contact' | 'bot') =>
			newEvent(
				'message.created',
				workspaceId,
				{ kind: authorKind === 'bot' ? 'campaign' : 'contact', id: null },
				{
					message: {
						id: `msg_${seq}`,
						conversationId,
						seq,
						authorKind,
						authorId: null,
						text: 'Hi',
						attachmentCount: 0,
						private: false,
						interactive: null,
						createdAt: new Date().toISOString(),
					},
					channel: 'widget',
				},
			);

		// Opened by a campaign: nobody is needed yet, nor for the campaigns' messages.
		const created = newEvent(
			'conversation.created',
			workspaceId,
			{ kind: 'campaign', id: 'cmp_test' },
			{
				conversation: { id: opened, ...summary },
			},
		);
		expect(await signal(created)).toBeNull();
		expect(await signal(message(opened, 2, 'bot'))).toBeNull();
		// The contact answers after two campaign messages: now it waits for a person.
		expect(await signal(message(opened, 3, 'contact'))).toBe('waiting');
		// A contact's later message elsewhere queues nothing (those conversations were queued when they began).
		expect(await signal(message(other, 3, 'contact'))).toBeNull();
		// Someone took it: nothing to queue.
		await db.update(conversations).set({ assigneeId: operatorId }).where(eq(conversations.id, opened));
		expect(await signal(message(opened, 4, 'contact'))).toBeNull();
	});
});
