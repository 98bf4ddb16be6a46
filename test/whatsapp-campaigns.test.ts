import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contacts, whatsappDeliveries, whatsappNumbers } from '../src/db/schema';
import { sendCampaignBatch } from '../src/domain/campaigns/sending';
import { NO_WHATSAPP } from '../src/domain/campaigns/whatsapp-sending';
import { contactWith, fixAudience, recipients, statusOf } from './email-campaigns-helpers';
import { api, db, expectError, seedWorkspace } from './factories';
import { metaMessage, postWebhook, type SeededNumber, seedNumber, webhookPayload } from './whatsapp-helpers';
import { fakeMessages, registerTemplates, uniqueWaId, whatsappWorkspace } from './whatsapp-outbound-helpers';

const ORDER = { name: 'order_update', language: 'en', body: 'Hi {{1}}, your order {{2}} has shipped.' };
const TEMPLATE = { name: 'order_update', language: 'en', variables: ['{{ contact.name }}', 'A-1042'] };

interface Campaign {
	id: string;
	channel: string;
	template: string;
	whatsappNumberId: string | null;
	whatsappTemplate: unknown;
	counts: Record<string, number>;
}

async function createWhatsappCampaign(token: string, number: SeededNumber, body: Record<string, unknown> = {}) {
	const res = await api(token, 'POST', '/v3/campaigns', {
		name: 'Shipping news',
		channel: 'whatsapp',
		whatsappNumberId: number.id,
		whatsappTemplate: TEMPLATE,
		audience: { kind: 'filter' },
		...body,
	});
	expect(res.status, await res.clone().text()).toBe(201);
	return (await res.json()) as Campaign;
}

/** A contact with a WhatsApp id (as inbound sets it), made through the API. */
async function whatsappContact(token: string, name: string): Promise<{ id: string; waId: string }> {
	const waId = uniqueWaId();
	const id = await contactWith(token, { name });
	await db.update(contacts).set({ whatsappId: waId }).where(eq(contacts.id, id));
	return { id, waId };
}

/** The campaign's WhatsApp deliveries. */
async function campaignDeliveries(workspaceId: string, campaignId: string) {
	return db
		.select()
		.from(whatsappDeliveries)
		.where(and(eq(whatsappDeliveries.workspaceId, workspaceId), eq(whatsappDeliveries.campaignId, campaignId)));
}

/** The templates the fake accepted from the number, by recipient. */
async function templatesSent(number: SeededNumber) {
	const { messages } = await fakeMessages(number.phoneNumberId);
	return messages.filter((m) => m.type === 'template');
}

describe('POST /v3/campaigns on WhatsApp', () => {
	it('names a connected number and one of its approved templates, checked when saved', async () => {
		const { token, number } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const campaign = await createWhatsappCampaign(token, number);
		expect(campaign).toMatchObject({
			channel: 'whatsapp',
			template: 'order_update',
			whatsappNumberId: number.id,
			whatsappTemplate: TEMPLATE,
		});
		const unknown = await api(token, 'POST', '/v3/campaigns', {
			name: 'x',
			channel: 'whatsapp',
			whatsappNumberId: number.id,
			whatsappTemplate: { name: 'no_such_template', language: 'en', variables: [] },
			audience: { kind: 'filter' },
		});
		expect((await expectError(unknown, 422)).message).toContain('no approved template no_such_template in en');
		const wrongCount = await api(token, 'PATCH', `/v3/campaigns/${campaign.id}`, {
			whatsappTemplate: { ...TEMPLATE, variables: ['only one'] },
		});
		expect((await expectError(wrongCount, 422)).message).toContain('takes 2 variables, not 1');
		const withText = await api(token, 'POST', '/v3/campaigns', {
			name: 'x',
			channel: 'whatsapp',
			template: 'Hi',
			whatsappNumberId: number.id,
			whatsappTemplate: TEMPLATE,
			audience: { kind: 'filter' },
		});
		expect((await expectError(withText, 422)).message).toContain('sends whatsappTemplate, not template');
		const onWidget = await api(token, 'POST', '/v3/campaigns', {
			name: 'x',
			template: 'Hi',
			whatsappNumberId: number.id,
			audience: { kind: 'filter' },
		});
		expect((await expectError(onWidget, 422)).message).toContain('only a WhatsApp campaign names');
	});

	it('is refused without a connected number: none named, another workspace’s, or one disconnected since', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const other = await seedWorkspace();
		const none = await api(other.token, 'POST', '/v3/campaigns', {
			name: 'x',
			channel: 'whatsapp',
			whatsappTemplate: TEMPLATE,
			audience: { kind: 'filter' },
		});
		expect((await expectError(none, 422)).message).toContain('needs the connected number');
		const foreign = await api(other.token, 'POST', '/v3/campaigns', {
			name: 'x',
			channel: 'whatsapp',
			whatsappNumberId: number.id,
			whatsappTemplate: TEMPLATE,
			audience: { kind: 'filter' },
		});
		expect((await expectError(foreign, 422)).message).toContain(`No WhatsApp number ${number.id} is connected`);
		const campaign = await createWhatsappCampaign(token, number);
		await expectError(await api(other.token, 'GET', `/v3/campaigns/${campaign.id}`), 404);
		await db.delete(whatsappNumbers).where(eq(whatsappNumbers.id, number.id));
		const send = await api(token, 'POST', `/v3/campaigns/${campaign.id}/send`, {});
		expect((await expectError(send, 409)).message).toContain('connect it, or give the campaign another number');
		expect(await statusOf(campaign.id)).toBe('draft');
		expect(await campaignDeliveries(workspaceId, campaign.id)).toEqual([]);
	});
});

describe('sending a WhatsApp campaign', () => {
	it('sends one template per contact with a WhatsApp id or phone, into its WhatsApp conversation; the rest skipped', async () => {
		const { token, workspaceId, number } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const ada = await whatsappContact(token, 'Ada');
		const phoneOnly = `+${uniqueWaId()}`;
		const bob = await contactWith(token, { name: 'Bob', phone: phoneOnly });
		const mailOnly = await contactWith(token, { name: 'Cy', email: 'cy@example.com' });
		const optedOut = await contactWith(token, { name: 'Dee', phone: `+${uniqueWaId()}` });
		await db.update(contacts).set({ optedOutAt: Date.now() }).where(eq(contacts.id, optedOut));
		const campaign = await createWhatsappCampaign(token, number);
		const preview = await api(token, 'POST', `/v3/campaigns/${campaign.id}/preview`, { contactId: ada.id });
		expect(await preview.json()).toMatchObject({ text: 'Hi Ada, your order A-1042 has shipped.', audienceSize: 3 });
		// The opted-out contact is left out of the audience.
		expect((await api(token, 'POST', `/v3/campaigns/${campaign.id}/send`, {})).status).toBe(200);
		await expect.poll(() => statusOf(campaign.id), { timeout: 20_000, interval: 200 }).toBe('sent');
		const list = await recipients(campaign.id);
		// Opted out before the start: never a recipient.
		expect(list.map((r) => [r.contact_id, r.status, r.error])).toEqual(
			[
				[ada.id, 'sent', null],
				[bob, 'sent', null],
				[mailOnly, 'skipped', NO_WHATSAPP],
			].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
		);
		await expect
			.poll(async () => (await templatesSent(number)).map((m) => `+${m.to}`).sort(), { timeout: 20_000 })
			.toEqual([`+${ada.waId}`, phoneOnly].sort());
		const toAda = (await templatesSent(number)).find((m) => m.to === ada.waId);
		expect(toAda?.body).toMatchObject({
			type: 'template',
			template: {
				name: 'order_update',
				language: { code: 'en' },
				components: [
					{
						type: 'body',
						parameters: [
							{ type: 'text', text: 'Ada' },
							{ type: 'text', text: 'A-1042' },
						],
					},
				],
			},
		});
		// Stored in a new WhatsApp conversation, with its delivery's state; the recipients list shows it too.
		const adaRow = list.find((r) => r.contact_id === ada.id);
		const conversation = await api(token, 'GET', `/v3/conversations/${adaRow?.conversation_id}`);
		expect(await conversation.json()).toMatchObject({ channel: 'whatsapp', contactId: ada.id });
		const messages = await api(token, 'GET', `/v3/conversations/${adaRow?.conversation_id}/messages`);
		const { data } = (await messages.json()) as { data: Array<{ text: string; whatsapp?: { status: string } }> };
		expect(data.map((m) => [m.text, m.whatsapp?.status])).toEqual([['Hi Ada, your order A-1042 has shipped.', 'sent']]);
		const page = await api(token, 'GET', `/v3/campaigns/${campaign.id}/recipients`);
		const shown = (await page.json()) as { data: Array<{ contactId: string; whatsapp: unknown; mail: unknown }> };
		expect(shown.data.find((r) => r.contactId === ada.id)).toMatchObject({
			mail: null,
			whatsapp: { status: 'sent', error: null, sentAt: expect.any(String) },
		});
		expect(shown.data.find((r) => r.contactId === mailOnly)?.whatsapp).toBeNull();
		// The customer's answer lands in that conversation and counts as the campaign's reply.
		const answer = metaMessage(ada.waId, 'text', { text: { body: 'Thanks!' } });
		expect((await postWebhook(number, webhookPayload(number, { messages: [answer] }))).status).toBe(200);
		const report = await api(token, 'GET', `/v3/reports/campaigns/${campaign.id}`);
		await expect
			.poll(async () => (await (await api(token, 'GET', `/v3/reports/campaigns/${campaign.id}`)).json()) as object)
			.toMatchObject({ reach: 2, skipped: 1, replies: 1, conversations: 1 });
		expect(report.status).toBe(200);
		const after = await api(token, 'GET', `/v3/conversations/${adaRow?.conversation_id}/messages`);
		expect(((await after.json()) as { data: Array<{ text: string }> }).data.map((m) => m.text)).toEqual([
			'Hi Ada, your order A-1042 has shipped.',
			'Thanks!',
		]);
		expect(await campaignDeliveries(workspaceId, campaign.id)).toHaveLength(2);
	});

	it('a batch delivered again, at once and after, sends each contact exactly one template', async () => {
		const { token, workspaceId, number } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const people = [];
		for (let i = 0; i < 12; i++) people.push(await whatsappContact(token, `C${i}`));
		const campaign = await createWhatsappCampaign(token, number);
		await sendNowAndRedeliver(token, workspaceId, campaign.id);
		await expect.poll(() => statusOf(campaign.id), { timeout: 20_000, interval: 200 }).toBe('sent');
		await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 0 });
		await expect.poll(async () => (await templatesSent(number)).length, { timeout: 20_000 }).toBe(12);
		const deliveries = await campaignDeliveries(workspaceId, campaign.id);
		expect(deliveries).toHaveLength(12);
		expect(new Set(deliveries.map((d) => d.dedupeKey))).toEqual(
			new Set(people.map((p) => `campaign:${campaign.id}:${p.id}`)),
		);
		expect((await templatesSent(number)).map((m) => `+${m.to}`).sort()).toEqual(people.map((p) => `+${p.waId}`).sort());
		// One message per contact in its conversation too.
		const list = await recipients(campaign.id);
		expect(new Set(list.map((r) => r.conversation_id)).size).toBe(12);
		for (const r of list.slice(0, 3)) {
			const res = await api(token, 'GET', `/v3/conversations/${r.conversation_id}/messages`);
			expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(1);
		}
	});

	it('skips a contact who opted out after the start, and fails one whose variable renders empty', async () => {
		const { token, workspaceId, number } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const ada = await whatsappContact(token, 'Ada');
		const gone = await whatsappContact(token, 'Gil');
		const nameless = await whatsappContact(token, 'Nobody');
		await db.update(contacts).set({ name: null }).where(eq(contacts.id, nameless.id));
		const campaign = await createWhatsappCampaign(token, number);
		await fixAudience(campaign.id, workspaceId, [ada.id, gone.id, nameless.id]);
		await db.update(contacts).set({ optedOutAt: Date.now() }).where(eq(contacts.id, gone.id));
		await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 0 });
		const byContact = new Map((await recipients(campaign.id)).map((r) => [r.contact_id, [r.status, r.error]]));
		expect(byContact.get(ada.id)).toEqual(['sent', null]);
		expect(byContact.get(gone.id)).toEqual(['skipped', 'the contact opted out']);
		expect(byContact.get(nameless.id)).toEqual(['failed', 'template: variable 1: it renders empty for this contact']);
		await expect.poll(async () => (await templatesSent(number)).map((m) => `+${m.to}`)).toEqual([`+${ada.waId}`]);
	});

	it('goes from the number it names, which the team’s next message in that conversation goes from too', async () => {
		const { token, workspaceId, number: first } = await whatsappWorkspace();
		const second = await seedNumber(workspaceId);
		await registerTemplates(second, [ORDER, { name: 'hello', language: 'en', body: 'Hello!' }]);
		const ada = await whatsappContact(token, 'Ada');
		const campaign = await createWhatsappCampaign(token, second);
		expect((await api(token, 'POST', `/v3/campaigns/${campaign.id}/send`, {})).status).toBe(200);
		await expect.poll(() => statusOf(campaign.id), { timeout: 20_000, interval: 200 }).toBe('sent');
		const [row] = await recipients(campaign.id);
		// A workspace of two numbers, and no message from the customer yet: the campaign's number is the line.
		const res = await api(token, 'POST', `/v3/whatsapp/conversations/${row?.conversation_id}/template`, {
			name: 'hello',
			language: 'en',
		});
		expect(res.status, await res.clone().text()).toBe(201);
		await expect.poll(async () => (await fakeMessages(second.phoneNumberId)).messages.length).toBe(2);
		expect((await fakeMessages(first.phoneNumberId)).messages).toEqual([]);
		expect((await fakeMessages(second.phoneNumberId)).messages.map((m) => m.to)).toEqual([ada.waId, ada.waId]);
	});

	it('test-sends the template to one contact, never a recipient', async () => {
		const { token, workspaceId, number } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		// Created first, so first by id: the preview's sample skips it for one the template can reach.
		const noPhone = await contactWith(token, { name: 'Cy', email: 'cy@example.com' });
		const ada = await whatsappContact(token, 'Ada');
		const campaign = await createWhatsappCampaign(token, number);
		const preview = await api(token, 'POST', `/v3/campaigns/${campaign.id}/preview`, {});
		expect(await preview.json()).toMatchObject({ contactId: ada.id, audienceSize: 2 });
		const res = await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId: ada.id });
		expect(res.status, await res.clone().text()).toBe(201);
		const sent = (await res.json()) as { conversationId: string; deliveryId: string; text: string };
		expect(sent).toMatchObject({ text: 'Hi Ada, your order A-1042 has shipped.', deliveryId: expect.any(String) });
		await expect.poll(async () => (await templatesSent(number)).map((m) => `+${m.to}`)).toEqual([`+${ada.waId}`]);
		expect(await recipients(campaign.id)).toEqual([]);
		expect(await campaignDeliveries(workspaceId, campaign.id)).toHaveLength(1);
		const refused = await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId: noPhone });
		expect((await expectError(refused, 409)).message).toContain(NO_WHATSAPP);
	});
});

/** Sends the campaign through the API and delivers its first batch three more times at once, as a Queue may. */
async function sendNowAndRedeliver(token: string, workspaceId: string, campaignId: string) {
	expect((await api(token, 'POST', `/v3/campaigns/${campaignId}/send`, {})).status).toBe(200);
	const again = { workspaceId, campaignId, batch: 0 };
	await Promise.all([sendCampaignBatch(env, again), sendCampaignBatch(env, again), sendCampaignBatch(env, again)]);
}
