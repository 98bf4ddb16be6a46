import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
	contactOf,
	continuationDueAt,
	deliveries,
	elapse,
	MINUTE,
	setContinuation,
	widgetConversation,
} from './email-continuation-helpers';
import { api, reply, seedWorkspace, type Visitor, widgetApi } from './factories';

/**
 * Where a continuation goes: the contact's e-mail, from the pre-chat form, the offline form, `identify` or
 * the CRM; and when it goes nowhere: no address, an address that bounced, a contact who stopped them, a
 * workspace that turned them off. A workspace's settings are its own.
 */

const DELAY_SECONDS = 60;

/** A workspace with a one-minute delay. */
async function workspace() {
	const seeded = await seedWorkspace();
	await setContinuation(seeded.workspaceId, { delaySeconds: DELAY_SECONDS });
	return seeded;
}

/** A team reply, the delay passed: the conversation's deliveries. */
async function unseenReply(token: string, conversationId: string) {
	await reply(token, conversationId, 'It is in stock.');
	await elapse(conversationId, DELAY_SECONDS * 1000);
	return deliveries(conversationId);
}

function identify(visitor: Visitor, body: Record<string, string>) {
	const path = `/widget/${visitor.workspaceId}/identify`;
	return widgetApi('POST', path, body, visitor.session, { 'CF-Connecting-IP': visitor.ip });
}

async function markContact(contactId: string, column: 'email_failing_at' | 'continuation_opt_out_at') {
	await env.DB.prepare(`UPDATE contacts SET ${column} = ? WHERE id = ?`).bind(Date.now(), contactId).run();
}

describe('the address a continuation goes to', () => {
	it('is the one typed in the pre-chat form', async () => {
		const { token, workspaceId } = await workspace();
		const form = await api(token, 'PUT', '/v3/widget/settings', { requiredFields: ['name', 'email'] });
		expect(form.status).toBe(200);
		const { conversationId } = await widgetConversation(workspaceId, { name: 'Ada', email: 'Ada@Example.com' });
		// Typed without proof: kept as claimed, lower-cased, on the visitor's own contact.
		expect(await unseenReply(token, conversationId)).toMatchObject([
			{ kind: 'continuation', recipient: 'ada@example.com', contact_id: await contactOf(token, conversationId) },
		]);
	});

	it('is the one left in the offline form (“leave us a message”)', async () => {
		const { token, workspaceId } = await workspace();
		// Offline: a holiday while business hours count. The widget's offline form asks for an e-mail (no
		// required field does here) and sends it with the first message, as the pre-chat form's.
		const today = new Date().toISOString().slice(0, 10);
		await api(token, 'PUT', '/v3/widget/settings', {
			businessHours: { enabled: true, timeZone: 'UTC', holidays: [today] },
		});
		const info = (await (await api(token, 'GET', '/v3/widget/info')).json()) as { online: boolean };
		expect(info.online).toBe(false);
		const { conversationId } = await widgetConversation(workspaceId, { email: 'grace@example.com' });
		const contact = await api(token, 'GET', `/v3/contacts/${await contactOf(token, conversationId)}`);
		expect(await contact.json()).toMatchObject({ claimedEmail: 'grace@example.com' });
		expect(await unseenReply(token, conversationId)).toMatchObject([{ recipient: 'grace@example.com' }]);
	});

	it('is the one the page gave with identify, after the conversation started', async () => {
		const { token, workspaceId } = await workspace();
		const { visitor, conversationId } = await widgetConversation(workspaceId);
		expect((await identify(visitor, { email: 'linus@example.com' })).status).toBe(200);
		expect(await unseenReply(token, conversationId)).toMatchObject([{ recipient: 'linus@example.com' }]);
	});

	it('is the CRM’s e-mail, before one the visitor typed', async () => {
		const { token, workspaceId } = await workspace();
		const { conversationId } = await widgetConversation(workspaceId, { email: 'typed@example.com' });
		const contactId = await contactOf(token, conversationId);
		const changed = await api(token, 'PATCH', `/v3/contacts/${contactId}`, { email: 'known@example.com' });
		expect(changed.status).toBe(200);
		expect(await unseenReply(token, conversationId)).toMatchObject([{ recipient: 'known@example.com' }]);
	});
});

describe('no continuation', () => {
	it('for a contact with no address', async () => {
		const { token, workspaceId } = await workspace();
		const { conversationId } = await widgetConversation(workspaceId);
		expect(await unseenReply(token, conversationId)).toEqual([]);
	});

	it('for an address that bounced, or a contact who stopped continuations', async () => {
		const { token, workspaceId } = await workspace();
		for (const mark of ['email_failing_at', 'continuation_opt_out_at'] as const) {
			const { conversationId } = await widgetConversation(workspaceId, { email: `${mark}@example.com` });
			await markContact(await contactOf(token, conversationId), mark);
			expect(await unseenReply(token, conversationId)).toEqual([]);
		}
	});

	it('in a workspace that turned continuations off', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await setContinuation(workspaceId, { enabled: false, delaySeconds: DELAY_SECONDS });
		const { conversationId } = await widgetConversation(workspaceId, { email: 'ada@example.com' });
		// The room learnt it with the conversation: a reply sets no timer at all.
		await reply(token, conversationId, 'It is in stock.');
		expect(await continuationDueAt(conversationId)).toBeNull();
		expect(await unseenReply(token, conversationId)).toEqual([]);
	});

	it('until the workspace turns them on: its rooms learn it within ten minutes', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await setContinuation(workspaceId, { enabled: false, delaySeconds: DELAY_SECONDS });
		const { conversationId } = await widgetConversation(workspaceId, { email: 'ada@example.com' });
		const first = await reply(token, conversationId, 'It is in stock.');
		await setContinuation(workspaceId, { enabled: true, delaySeconds: DELAY_SECONDS });
		await elapse(conversationId, 10 * MINUTE);
		const last = await reply(token, conversationId, 'Still there?');
		expect(await continuationDueAt(conversationId)).not.toBeNull();
		await elapse(conversationId, DELAY_SECONDS * 1000);
		// The reply written while the room thought them off is unseen too: it goes with the next one.
		expect(await deliveries(conversationId)).toMatchObject([{ first_seq: first.seq, last_seq: last.seq }]);
	});

	it('for the messages of its time only: an address given later is mailed the next replies', async () => {
		const { token, workspaceId } = await workspace();
		const { visitor, conversationId } = await widgetConversation(workspaceId);
		expect(await unseenReply(token, conversationId)).toEqual([]);
		expect((await identify(visitor, { email: 'late@example.com' })).status).toBe(200);
		const { seq } = await reply(token, conversationId, 'Still there?');
		await elapse(conversationId, DELAY_SECONDS * 1000);
		expect(await deliveries(conversationId)).toMatchObject([{ recipient: 'late@example.com', first_seq: seq }]);
	});
});

describe('tenant isolation', () => {
	it('applies a workspace’s settings to its own conversations only', async () => {
		const quiet = await seedWorkspace();
		await setContinuation(quiet.workspaceId, { enabled: false });
		const quick = await seedWorkspace();
		await setContinuation(quick.workspaceId, { delaySeconds: 30 });
		// No settings row: the defaults (on, two minutes).
		const plain = await seedWorkspace();
		const conversations = {
			quiet: (await widgetConversation(quiet.workspaceId, { email: 'a@example.com' })).conversationId,
			quick: (await widgetConversation(quick.workspaceId, { email: 'b@example.com' })).conversationId,
			plain: (await widgetConversation(plain.workspaceId, { email: 'c@example.com' })).conversationId,
		};
		await reply(quiet.token, conversations.quiet, 'Hi');
		await reply(quick.token, conversations.quick, 'Hi');
		await reply(plain.token, conversations.plain, 'Hi');
		for (const id of Object.values(conversations)) await elapse(id, MINUTE);
		expect(await deliveries(conversations.quiet)).toEqual([]);
		expect(await deliveries(conversations.quick)).toMatchObject([
			{ workspace_id: quick.workspaceId, recipient: 'b@example.com' },
		]);
		expect(await deliveries(conversations.plain)).toEqual([]);
		for (const id of Object.values(conversations)) await elapse(id, MINUTE);
		expect(await deliveries(conversations.quiet)).toEqual([]);
		expect(await deliveries(conversations.plain)).toMatchObject([
			{ workspace_id: plain.workspaceId, recipient: 'c@example.com' },
		]);
		// Each delivery is its conversation's workspace's.
		const { results } = await env.DB.prepare(
			`SELECT COUNT(*) AS n FROM mail_deliveries d JOIN conversations c ON c.id = d.conversation_id
			WHERE d.conversation_id IN (?, ?, ?) AND d.workspace_id != c.workspace_id`,
		)
			.bind(...Object.values(conversations))
			.all<{ n: number }>();
		expect(results[0]?.n).toBe(0);
	});
});
