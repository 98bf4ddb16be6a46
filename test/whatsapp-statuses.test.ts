import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations, whatsappDeliveries } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import { api, db, seedWorkspace } from './factories';
import { metaMessage, postWebhook, randomWaId, seedNumber, webhookPayload } from './whatsapp-helpers';
import { contactMessages } from './whatsapp-inbound-helpers';

describe('status webhooks', () => {
	async function sentMessage() {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'hi' } })] }),
		);
		const { conversation } = await contactMessages(token, workspaceId, from);
		const reply = await api(token, 'POST', '/v3/messages', { conversationId: conversation.id, text: 'Hello Ana' });
		const { seq } = (await reply.json()) as { seq: number };
		const wamid = `wamid.${crypto.randomUUID()}`;
		const now = Date.now();
		await db.insert(whatsappDeliveries).values({
			id: newId('wad', now),
			workspaceId,
			numberId: number.id,
			kind: 'reply',
			dedupeKey: `reply:${conversation.id}:${seq}`,
			recipient: from,
			conversationId: conversation.id,
			messageSeq: seq,
			status: 'sent',
			attempts: 1,
			wamid,
			createdAt: now,
			updatedAt: now,
			sentAt: now,
		});
		const status = (state: string, extra: Record<string, unknown> = {}) => ({
			id: wamid,
			status: state,
			timestamp: String(Math.floor(Date.now() / 1000)),
			recipient_id: from,
			...extra,
		});
		const send = (statuses: Record<string, unknown>[]) => postWebhook(number, webhookPayload(number, { statuses }));
		const delivery = () => db.select().from(whatsappDeliveries).where(eq(whatsappDeliveries.wamid, wamid)).get();
		return { workspaceId, conversation, status, send, delivery };
	}

	it('move a delivery forward only, and a read moves the contact’s read position', async () => {
		const { workspaceId, conversation, status, send, delivery } = await sentMessage();
		await expect.poll(async () => (await conversationRow(workspaceId, conversation.id))?.unreadByContact).toBe(1);
		expect((await send([status('read')])).status).toBe(200);
		expect(await delivery()).toMatchObject({ status: 'read' });
		expect((await delivery())?.readAt).toBeGreaterThan(0);
		// Meta's delivered arriving after the read does not move it back; nor does a failure.
		await send([
			status('delivered'),
			status('sent'),
			status('failed', { errors: [{ code: 131026, title: 'Message undeliverable' }] }),
		]);
		const row = await delivery();
		expect(row).toMatchObject({ status: 'read', errorCode: null });
		expect(row?.deliveredAt).toBeGreaterThan(0);
		await expect.poll(async () => (await conversationRow(workspaceId, conversation.id))?.unreadByContact).toBe(0);
	});

	it('record a failure with Meta’s code and title; an unknown wamid is ignored', async () => {
		const { status, send, delivery } = await sentMessage();
		const failed = status('failed', {
			errors: [
				{ code: 131047, title: 'Re-engagement message', error_data: { details: 'More than 24 hours have passed' } },
			],
		});
		expect((await send([failed, { ...status('read'), id: 'wamid.not-ours' }])).status).toBe(200);
		expect(await delivery()).toMatchObject({
			status: 'failed',
			errorCode: 131047,
			error: 'Re-engagement message: More than 24 hours have passed',
		});
	});
});

function conversationRow(workspaceId: string, id: string) {
	return db
		.select()
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
		.get();
}
