import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { whatsappDeliveries } from '../src/db/schema';
import { claimDeliveries, claimDelivery, deliveryById } from '../src/domain/channels/whatsapp/deliveries';
import { enqueueWhatsapp } from '../src/domain/channels/whatsapp/outbox';
import {
	giveUpDelivery,
	processDelivery,
	RetryableSend,
	retryDelaySeconds,
	sweepWhatsapp,
} from '../src/domain/channels/whatsapp/sender';
import { api, db } from './factories';
import { fakeGraph } from './whatsapp-helpers';
import {
	deliveriesTo,
	fakeMessages,
	registerTemplates,
	seedTemplateDelivery,
	whatsappConversation,
	whatsappWorkspace,
} from './whatsapp-outbound-helpers';

describe('an operator reply in a WhatsApp conversation', () => {
	it('reaches the Cloud API with the right body, and is recorded sent with its wamid', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Your *order* ships _today_' });
		expect(res.status).toBe(201);
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		const { messages } = await fakeMessages(number.phoneNumberId);
		expect(messages.map((m) => m.body)).toEqual([
			{
				messaging_product: 'whatsapp',
				recipient_type: 'individual',
				to: `+${waId}`,
				type: 'text',
				text: { body: 'Your *order* ships _today_' },
			},
		]);
		const [delivery] = await deliveriesTo(waId);
		expect(delivery).toMatchObject({ kind: 'reply', wamid: messages[0]?.wamid, partsSent: 1, attempts: 1 });
	});
});

describe('several messages to one customer', () => {
	it('arrive in the order they were written', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number);
		const texts = ['one', 'two', 'three', 'four'];
		for (const text of texts) await api(token, 'POST', '/v3/messages', { conversationId, text });
		await expect
			.poll(async () => (await deliveriesTo(waId)).filter((d) => d.status === 'sent').length)
			.toBe(texts.length);
		const sent = (await fakeMessages(number.phoneNumberId)).messages;
		expect(sent.map((m) => (m.body.type === 'text' ? m.body.text.body : m.body.type))).toEqual(texts);
	});
});

describe('a bot’s buttons', () => {
	async function sentFor(interactive: unknown, text = 'Which one?') {
		const { token, number } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text, interactive });
		expect(res.status).toBe(201);
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		return (await fakeMessages(number.phoneNumberId)).messages.map((m) => m.body);
	}
	const labels = (...all: string[]) => ({ type: 'buttons', buttons: all.map((label) => ({ label })) });

	it('become interactive reply buttons, up to three', async () => {
		const [body] = await sentFor(labels('Yes', 'No'));
		expect(body).toMatchObject({
			type: 'interactive',
			interactive: {
				type: 'button',
				body: { text: 'Which one?' },
				action: {
					buttons: [
						{ type: 'reply', reply: { id: 'opt:0', title: 'Yes' } },
						{ type: 'reply', reply: { id: 'opt:1', title: 'No' } },
					],
				},
			},
		});
	});

	it('become a list beyond three', async () => {
		const [body] = await sentFor(labels('Red', 'Green', 'Blue', 'Black', 'White'));
		expect(body).toMatchObject({ type: 'interactive', interactive: { type: 'list' } });
		if (body?.type !== 'interactive' || body.interactive.type !== 'list') throw new Error('not a list');
		expect(body.interactive.action.sections[0]?.rows).toHaveLength(5);
	});

	it('become numbered text beyond the list’s limits, and a data-entry question is plain text', async () => {
		const long = 'A label of thirty characters!!';
		expect(await sentFor(labels(long, 'Short'))).toEqual([
			expect.objectContaining({ type: 'text', text: { body: `Which one?\n\n1. ${long}\n2. Short` } }),
		]);
		expect(await sentFor({ type: 'input', input: 'email' }, 'Your e-mail?')).toEqual([
			expect.objectContaining({ type: 'text', text: { body: 'Your e-mail?' } }),
		]);
	});
});

describe('a message with files', () => {
	const file = (name: string, contentType: string) => ({
		url: `https://files.test/${name}`,
		name,
		contentType,
		size: 10,
	});

	it('goes as its text, then each file', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number);
		const res = await api(token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Here you go',
			attachments: [file('a.pdf', 'application/pdf'), file('b.png', 'image/png')],
		});
		expect(res.status).toBe(201);
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		const sent = (await fakeMessages(number.phoneNumberId)).messages;
		expect(sent.map((m) => m.type)).toEqual(['text', 'document', 'image']);
		expect(sent[1]?.body).toMatchObject({ document: { link: 'https://files.test/a.pdf', filename: 'a.pdf' } });
		// The last body's id is the delivery's: its statuses move the message on.
		expect((await deliveriesTo(waId))[0]).toMatchObject({ partsSent: 3, wamid: sent[2]?.wamid });
	});

	it('sends a file kept in R2 by a signed link Meta can fetch without a token', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number);
		const fileId = `fil_${'ab'.repeat(16)}`;
		await env.FILES.put(`files/${workspaceId}/${fileId}`, new TextEncoder().encode('%PDF-1.4 invoice'), {
			httpMetadata: { contentType: 'application/pdf' },
			customMetadata: { name: 'invoice.pdf', conversationId },
		});
		const url = `https://parley.test/v3/files/${fileId}`;
		await api(token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Your invoice',
			attachments: [{ url, name: 'invoice.pdf', contentType: 'application/pdf', size: 16 }],
		});
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		const [, document] = (await fakeMessages(number.phoneNumberId)).messages;
		if (document?.body.type !== 'document' || !('link' in document.body.document)) throw new Error('no document link');
		const link = new URL(document.body.document.link);
		expect(link.origin).toBe('https://parley.test');
		expect(link.pathname).toMatch(/^\/mail\/files\/[\w-]+\.[\w-]+$/);
		// What Meta does: fetch it, with no credential.
		const fetched = await api(null, 'GET', link.pathname);
		expect(fetched.status).toBe(200);
		expect(await fetched.text()).toBe('%PDF-1.4 invoice');
	});

	it('goes on from the next body after a try that failed part-way', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		const { conversationId, waId, contactId } = await whatsappConversation(token, number);
		const res = await api(token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Here you go',
			attachments: [file('a.pdf', 'application/pdf')],
		});
		expect(res.status).toBe(201);
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		// A second delivery of the same message whose first try sent the text, then failed.
		const { id } = await enqueueWhatsapp(env, db, {
			workspaceId,
			numberId: number.id,
			kind: 'reply',
			dedupeKey: 'test:part-way',
			recipient: waId,
			conversationId,
			messageSeq: 1,
			contactId,
		});
		await db.update(whatsappDeliveries).set({ partsSent: 1 }).where(eq(whatsappDeliveries.id, id));
		await processDelivery(env, db, id);
		const sent = (await fakeMessages(number.phoneNumberId)).messages;
		expect(sent.map((m) => m.type)).toEqual(['text', 'document', 'document']);
		expect((await deliveryById(db, id))?.partsSent).toBe(2);
	});
});

describe('a redelivered Queue message', () => {
	it('sends nothing twice, whether processed again in sequence or concurrently', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number);
		await api(token, 'POST', '/v3/messages', { conversationId, text: 'Once' });
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		const [delivery] = await deliveriesTo(waId);
		if (!delivery) throw new Error('no delivery');
		await Promise.all([processDelivery(env, db, delivery.id), processDelivery(env, db, delivery.id)]);
		await env.WHATSAPP_OUT.send({ deliveryId: delivery.id });
		await processDelivery(env, db, delivery.id);
		expect(await deliveryById(db, delivery.id)).toEqual(delivery);
		expect((await fakeMessages(number.phoneNumberId)).messages).toHaveLength(1);
	});
});

describe('Meta’s errors', () => {
	it('retries a temporary one through the Queue, and records the others failed with Meta’s code', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number);
		const path = `/${number.phoneNumberId}/messages`;
		await fakeGraph('/__fake/fail', { path, code: 131000, title: 'Something went wrong', status: 500 });
		await api(token, 'POST', '/v3/messages', { conversationId, text: 'Hello' });
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		expect((await deliveriesTo(waId))[0]).toMatchObject({ attempts: 2, error: null, errorCode: null });

		await fakeGraph('/__fake/fail', { path, code: 131026, title: 'Message undeliverable', details: 'Not on WhatsApp' });
		await api(token, 'POST', '/v3/messages', { conversationId, text: 'Again' });
		await expect.poll(async () => (await deliveriesTo(waId))[1]?.status).toBe('failed');
		expect((await deliveriesTo(waId))[1]).toMatchObject({
			attempts: 1,
			errorCode: 131026,
			error: '131026 Message undeliverable: Not on WhatsApp',
		});
		expect((await fakeMessages(number.phoneNumberId)).messages).toHaveLength(1);
	});

	it('puts a throttled delivery back in the queue with Meta’s code, for a retry with backoff', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		const { waId } = await whatsappConversation(token, number);
		await registerTemplates(number, [{ name: 'ping', language: 'en' }]);
		await fakeGraph('/__fake/fail', {
			path: `/${number.phoneNumberId}/messages`,
			code: 131056,
			title: 'Pair rate limit hit',
		});
		const id = await seedTemplateDelivery(workspaceId, number, waId, 'ping');
		const thrown = await processDelivery(env, db, id).catch((error: unknown) => error);
		expect(thrown).toBeInstanceOf(RetryableSend);
		expect(await deliveryById(db, id)).toMatchObject({ status: 'queued', errorCode: 131056 });
		// Meta's 4^n seconds for one customer's pair rate, 2^n for the rest, at most 5 minutes.
		expect([1, 2, 3, 5].map((n) => retryDelaySeconds(n, thrown))).toEqual([4, 16, 64, 300]);
		expect(retryDelaySeconds(3, new RetryableSend('x', 130429, 'number'))).toBe(8);
		await processDelivery(env, db, id);
		expect(await deliveryById(db, id)).toMatchObject({ status: 'sent', errorCode: null, error: null });
	});

	it('records a delivery whose every try failed as failed, from the dead-letter queue', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		const { waId } = await whatsappConversation(token, number);
		const id = await seedTemplateDelivery(workspaceId, number, waId, 'ping');
		await db
			.update(whatsappDeliveries)
			.set({ errorCode: 130429, error: '130429 Rate limit hit' })
			.where(eq(whatsappDeliveries.id, id));
		await giveUpDelivery(db, id);
		expect(await deliveryById(db, id)).toMatchObject({
			status: 'failed',
			errorCode: 130429,
			error: 'gave up after 0 tries; last: 130429 Rate limit hit',
		});
	});
});

describe("a Queue batch's claim", () => {
	it('claims every queued delivery of the batch in one go, and none that another consumer holds or that went', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		await registerTemplates(number, [{ name: 'ping', language: 'en' }]);
		const { waId } = await whatsappConversation(token, number);
		const ids = [];
		for (let i = 0; i < 95; i++) ids.push(await seedTemplateDelivery(workspaceId, number, waId, 'ping'));
		const held = ids[3] as string;
		await claimDelivery(db, held);
		const claimed = await claimDeliveries(db, [...ids, 'wad_unknown']);
		// 94 claimed across the two statements (90 ids each at most); the one held elsewhere left to its holder.
		expect(claimed.map((row) => row.id).sort()).toEqual(ids.filter((id) => id !== held).sort());
		expect(claimed.every((row) => row.status === 'sending' && row.attempts === 1)).toBe(true);
		expect(await claimDeliveries(db, ids)).toEqual([]);
		expect(await deliveryById(db, held)).toMatchObject({ status: 'sending', attempts: 1 });
	});
});

describe('the sweep', () => {
	it('sends a delivery whose Queue message was lost, and never sends twice one left sending', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		await registerTemplates(number, [{ name: 'ping', language: 'en' }]);
		const { waId } = await whatsappConversation(token, number);
		const lost = await seedTemplateDelivery(workspaceId, number, waId, 'ping');
		const interrupted = await seedTemplateDelivery(workspaceId, number, waId, 'ping');
		await claimDelivery(db, interrupted);
		// Twenty minutes later: both are past their grace.
		await sweepWhatsapp(env, db, Date.now() + 20 * 60_000);
		await expect.poll(async () => (await deliveryById(db, lost))?.status).toBe('sent');
		expect(await deliveryById(db, interrupted)).toMatchObject({ status: 'failed', wamid: null, attempts: 1 });
		expect((await fakeMessages(number.phoneNumberId)).messages).toHaveLength(1);
	});
});
