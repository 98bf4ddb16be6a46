import { env, exports } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { contacts, conversations, whatsappInbound, whatsappWindows } from '../src/db/schema';
import { receiveWebhook } from '../src/domain/channels/whatsapp/webhook';
import { ServiceUnavailable } from '../src/lib/errors';
import { api, db, expectError, seedWorkspace } from './factories';
import { PNG_1X1 } from './images';
import {
	fakeGraph,
	fakeMedia,
	metaJson,
	metaMessage,
	metaSignature,
	postWebhook,
	randomWaId,
	seedNumber,
	webhookPayload,
} from './whatsapp-helpers';
import { contactMessages, inboundRow } from './whatsapp-inbound-helpers';

/** Rows of every table a webhook writes to, for "nothing stored" checks. */
async function counts(workspaceId: string) {
	const count = async (
		table: typeof contacts | typeof conversations | typeof whatsappInbound | typeof whatsappWindows,
	) =>
		(await db.select({ n: sql<number>`count(*)` }).from(table).where(eq(table.workspaceId, workspaceId)).get())?.n ?? 0;
	return {
		contacts: await count(contacts),
		conversations: await count(conversations),
		inbound: await count(whatsappInbound),
		windows: await count(whatsappWindows),
	};
}

describe('POST /whatsapp/{id}/webhook', () => {
	it('posts a signed text message as the contact, in a new whatsapp conversation', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const message = metaMessage(from, 'text', { text: { body: 'Olá! Quero saber do pedido 4411' } });
		const res = await postWebhook(
			number,
			webhookPayload(number, { messages: [message], profiles: { [from]: 'Ana Souza' } }),
		);
		expect(res.status).toBe(200);
		const { contact, conversation, messages } = await contactMessages(token, workspaceId, from);
		expect(contact).toMatchObject({ name: 'Ana Souza', phone: `+${from}`, whatsappId: from });
		expect(conversation.channel).toBe('whatsapp');
		expect(messages.map((m) => m.text)).toEqual(['Olá! Quero saber do pedido 4411']);
		expect(await inboundRow(message.id)).toMatchObject({ status: 'posted', conversationId: conversation.id });
		const window = await db.select().from(whatsappWindows).where(eq(whatsappWindows.waId, from)).get();
		expect(window).toMatchObject({ numberId: number.id, workspaceId });
	});

	it('refuses a forged, a missing or another secret’s signature with 401, storing nothing', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const payload = webhookPayload(number, { messages: [metaMessage(randomWaId(), 'text', { text: { body: 'hi' } })] });
		const before = await counts(workspaceId);
		await expectError(await postWebhook(number, payload, { secret: 'not-the-app-secret' }), 401);
		await expectError(await postWebhook(number, payload, { secret: null }), 401);
		// Signed over other bytes than those sent (a re-serialised body): refused.
		const signedOther = metaJson({ ...payload, extra: true });
		const mismatched = await exports.default.fetch(
			new Request(`https://parley.test/whatsapp/${number.id}/webhook`, {
				method: 'POST',
				headers: { 'X-Hub-Signature-256': await metaSignature(number.appSecret, signedOther) },
				body: metaJson(payload),
			}),
		);
		await expectError(mismatched, 401);
		expect(await counts(workspaceId)).toEqual(before);
	});

	it('refuses an unknown connection, and a payload about another number, with 401, storing nothing', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const other = await seedNumber(workspaceId);
		const before = await counts(workspaceId);
		const message = metaMessage(randomWaId(), 'text', { text: { body: 'hi' } });
		// Signed with this number's secret, but naming the other number's phone number id.
		await expectError(await postWebhook(number, webhookPayload(other, { messages: [message] })), 401);
		await expectError(
			await postWebhook(
				{ ...number, id: 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' },
				webhookPayload(number, { messages: [message] }),
			),
			401,
		);
		expect(await counts(workspaceId)).toEqual(before);
	});

	it('refuses a truncated body (400), a body not Meta’s shape (422) and one over 1 MiB (413), storing nothing', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const before = await counts(workspaceId);
		const whole = metaJson(
			webhookPayload(number, { messages: [metaMessage(randomWaId(), 'text', { text: { body: 'hi' } })] }),
		);
		const truncated = whole.slice(0, whole.length - 20);
		const cut = await expectError(await postWebhook(number, null, { raw: truncated }), 400);
		expect(cut.message).toMatch(/not JSON/);
		await expectError(await postWebhook(number, { object: 'page', entry: [] }), 422);
		const noId = webhookPayload(number, { messages: [{ from: randomWaId(), type: 'text', timestamp: '1' }] });
		await expectError(await postWebhook(number, noId), 422);
		const huge = metaJson(
			webhookPayload(number, {
				messages: [metaMessage(randomWaId(), 'text', { text: { body: 'x'.repeat(10 * 1024 * 1024) } })],
			}),
		);
		await expectError(await postWebhook(number, null, { raw: huge }), 413);
		expect(await counts(workspaceId)).toEqual(before);
	});

	it('posts a redelivered message once (same wamid), whatever the redelivery', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const payload = webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'only once' } })] });
		// Twice at the same moment (Meta retries while the first is being handled), then once more later.
		const together = await Promise.all([postWebhook(number, payload), postWebhook(number, payload)]);
		expect(together.map((res) => res.status)).toEqual([200, 200]);
		expect((await postWebhook(number, payload)).status).toBe(200);
		const { messages } = await contactMessages(token, workspaceId, from);
		expect(messages.map((m) => m.text)).toEqual(['only once']);
	});

	it('tries a failed message again on redelivery, and posts it once', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		// Media ids are the fake's, shared by the files running side by side: this one is the test's own.
		const mediaId = `late-${crypto.randomUUID()}`;
		const message = metaMessage(from, 'image', { image: { id: mediaId, mime_type: 'image/png', sha256: 'x' } });
		// Meta's temporary error on resolving the media: the message fails, recorded with the reason.
		await fakeGraph('/__fake/fail', {
			path: `/${mediaId}`,
			code: 131016,
			status: 500,
			title: 'Service unavailable',
			count: 1,
		});
		// 503: Meta delivers the batch again, which is what tries the message again.
		await expectError(await postWebhook(number, webhookPayload(number, { messages: [message] })), 503);
		const failed = await inboundRow(message.id);
		expect(failed?.status).toBe('failed');
		expect(failed?.failure).toMatch(/131016|Service unavailable/);
		// Redelivered: the media now resolves (registered under the id the webhook names).
		await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png', { id: mediaId });
		expect((await postWebhook(number, webhookPayload(number, { messages: [message] }))).status).toBe(200);
		expect((await postWebhook(number, webhookPayload(number, { messages: [message] }))).status).toBe(200);
		expect((await inboundRow(message.id))?.status).toBe('posted');
		const { messages } = await contactMessages(token, workspaceId, from);
		expect(messages).toHaveLength(1);
		expect(messages[0]?.attachments).toHaveLength(1);
	});

	it('answers 200 for a message that can never be posted (kept as failed), so Meta does not retry it for days', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		// A username-only customer (no phone number in wa_id), not matched yet.
		const message = metaMessage('', 'text', { text: { body: 'hi' }, from_user_id: 'user.93731' });
		expect((await postWebhook(number, webhookPayload(number, { messages: [message] }))).status).toBe(200);
		expect(await inboundRow(message.id)).toMatchObject({
			status: 'failed',
			failure: expect.stringMatching(/phone number/),
		});
	});

	it('leaves what is over its time budget to Meta’s redelivery (503), then applies the rest', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const batch = [1, 2, 3].map((n) => metaMessage(from, 'text', { text: { body: `part ${n}` } }));
		const body = metaJson(webhookPayload(number, { messages: batch }));
		const signature = await metaSignature(number.appSecret, body);
		const receive = () =>
			receiveWebhook(env, openDatabase(env.DB), number.id, body, signature, 'https://parley.test', 0);
		// A budget of 0: one update per delivery.
		await expect(receive()).rejects.toThrow(ServiceUnavailable);
		expect((await contactMessages(token, workspaceId, from)).messages.map((m) => m.text)).toEqual(['part 1']);
		await expect(receive()).rejects.toThrow(ServiceUnavailable);
		const done = await receiveWebhook(env, openDatabase(env.DB), number.id, body, signature, 'https://parley.test');
		expect(done.messages).toMatchObject({ posted: 1, repeated: 2 });
		expect((await contactMessages(token, workspaceId, from)).messages.map((m) => m.text)).toEqual([
			'part 1',
			'part 2',
			'part 3',
		]);
	});

	it('finds the contact by WhatsApp id first, else by phone (keeping its name)', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const created = await api(token, 'POST', '/v3/contacts', { name: 'Known By Phone', phone: `+${from}` });
		const known = (await created.json()) as { id: string };
		await postWebhook(
			number,
			webhookPayload(number, {
				messages: [metaMessage(from, 'text', { text: { body: 'hi' } })],
				profiles: { [from]: 'Profile Name' },
			}),
		);
		const { contact } = await contactMessages(token, workspaceId, from);
		expect(contact.id).toBe(known.id);
		expect(contact.name).toBe('Known By Phone');
		// Once linked, the WhatsApp id finds it even after the phone changed.
		await db.update(contacts).set({ phone: '+15550000000' }).where(eq(contacts.id, known.id));
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'again' } })] }),
		);
		const again = await contactMessages(token, workspaceId, from);
		expect(again.contact.id).toBe(known.id);
		expect(again.messages.map((m) => m.text)).toEqual(['hi', 'again']);
	});
});
