import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { postMessage } from '../src/domain/conversations/live';
import { iso } from '../src/lib/ids';
import { SERVICE_WINDOW_MS } from '../src/model/whatsapp';
import { api, expectError, seedOperator, seedWorkspace } from './factories';
import { metaMessage, postWebhook, webhookPayload } from './whatsapp-helpers';
import { contactMessages } from './whatsapp-inbound-helpers';
import {
	deliveriesTo,
	fakeMessages,
	uniqueWaId,
	whatsappConversation,
	whatsappWorkspace,
} from './whatsapp-outbound-helpers';

const HOUR = 3_600_000;

async function messagesOf(token: string, conversationId: string) {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Array<{ seq: number; private: boolean; whatsapp?: unknown }> }).data;
}

describe('the 24-hour window', () => {
	it('refuses a team member’s message once it has closed (409, the window’s end), storing nothing', async () => {
		const { token, number } = await whatsappWorkspace();
		const lastInbound = Date.now() - 25 * HOUR;
		const { conversationId, waId } = await whatsappConversation(token, number, 25 * HOUR);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Still there?' });
		const body = await expectError(res, 409);
		expect(body.message).toContain('24-hour customer-service window');
		// The window's end, to the second of the customer's last message plus 24 hours.
		expect(body.message).toContain(iso(lastInbound + SERVICE_WINDOW_MS).slice(0, 16));
		expect(await messagesOf(token, conversationId)).toEqual([]);
		// A private note reaches no customer: always allowed.
		const note = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Call them', private: true });
		expect(note.status).toBe(201);
		expect(await deliveriesTo(waId)).toEqual([]);
	});

	it('refuses it when the customer never wrote to the number', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId } = await whatsappConversation(token, number, null);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'Hello' });
		expect((await expectError(res, 409)).message).toContain('has not written to this number');
	});

	it('keeps no window where no number is connected: `whatsapp` is then only an integration’s channel name', async () => {
		const { token } = await seedWorkspace();
		const started = await api(token, 'POST', '/v3/conversations', {
			contact: { phone: '+15550100999' },
			channel: 'whatsapp',
			message: { text: 'Sent through our own provider' },
		});
		expect(started.status).toBe(201);
		const { id } = (await started.json()) as { id: string };
		const reply = await api(token, 'POST', '/v3/messages', { conversationId: id, text: 'And the answer' });
		expect(reply.status).toBe(201);
		expect((await messagesOf(token, id)).map((m) => m.seq)).toEqual([1, 2]);
	});

	it('lets a bot’s message be stored, and records its delivery skipped with the reason', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number, 30 * HOUR);
		await postMessage(env, {
			workspaceId,
			conversationId,
			authorKind: 'bot',
			authorId: null,
			text: 'We are closed today',
			attachments: [],
			clientMessageId: null,
		});
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('skipped');
		expect((await deliveriesTo(waId))[0]?.error).toMatch(/^Outside the 24-hour customer-service window: it closed at /);
		const [message] = await messagesOf(token, conversationId);
		expect(message?.whatsapp).toEqual({ status: 'skipped', error: (await deliveriesTo(waId))[0]?.error });
		expect((await fakeMessages(number.phoneNumberId)).messages).toEqual([]);
	});

	it('shows each team message’s WhatsApp state in the message list', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId, waId } = await whatsappConversation(token, number, 23 * HOUR);
		await api(token, 'POST', '/v3/messages', { conversationId, text: 'Within the window' });
		await api(token, 'POST', '/v3/messages', { conversationId, text: 'A note', private: true });
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		const list = await messagesOf(token, conversationId);
		expect(list.map((m) => m.whatsapp)).toEqual([{ status: 'sent' }, undefined]);
	});
});

describe('GET /v3/whatsapp/conversations/{id}/window', () => {
	it('counts from Meta’s timestamp of the customer’s message, not from when Parley received it', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		const waId = uniqueWaId();
		// A webhook Meta delivers 23 hours late: the window has one hour left, not twenty-four.
		const sentAt = Math.floor((Date.now() - 23 * HOUR) / 1000);
		const late = {
			...metaMessage(waId, 'text', { text: { body: 'Is my order on its way?' } }),
			timestamp: String(sentAt),
		};
		expect((await postWebhook(number, webhookPayload(number, { messages: [late] }))).status).toBe(200);
		const { conversation } = await contactMessages(token, workspaceId, waId);
		const agent = await seedOperator(workspaceId, ['messages:send']);
		const res = await api(agent.token, 'GET', `/v3/whatsapp/conversations/${conversation.id}/window`);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			numberId: number.id,
			enforced: true,
			lastCustomerMessageAt: iso(sentAt * 1000),
			endsAt: iso(sentAt * 1000 + SERVICE_WINDOW_MS),
			open: true,
		});
	});

	it('says closed once the window has passed, and never opened when the customer never wrote', async () => {
		const { token, number } = await whatsappWorkspace();
		const closed = await whatsappConversation(token, number, 25 * HOUR);
		const res = await api(token, 'GET', `/v3/whatsapp/conversations/${closed.conversationId}/window`);
		expect(await res.json()).toMatchObject({ numberId: number.id, enforced: true, open: false });
		const never = await whatsappConversation(token, number, null);
		const none = await api(token, 'GET', `/v3/whatsapp/conversations/${never.conversationId}/window`);
		expect(await none.json()).toEqual({
			numberId: number.id,
			enforced: true,
			lastCustomerMessageAt: null,
			endsAt: null,
			open: false,
		});
	});

	it('keeps none without a connected number, is a 422 on another channel and a 404 in another workspace', async () => {
		const { token } = await seedWorkspace();
		const started = await api(token, 'POST', '/v3/conversations', {
			contact: { phone: `+${uniqueWaId()}` },
			channel: 'whatsapp',
		});
		const { id } = (await started.json()) as { id: string };
		const res = await api(token, 'GET', `/v3/whatsapp/conversations/${id}/window`);
		expect(await res.json()).toEqual({
			numberId: null,
			enforced: false,
			lastCustomerMessageAt: null,
			endsAt: null,
			open: true,
		});
		const other = await api(token, 'POST', '/v3/conversations', {
			contact: { email: `ada.${crypto.randomUUID().slice(0, 8)}@example.com` },
			message: { text: 'Hello' },
		});
		const { id: apiConversation } = (await other.json()) as { id: string };
		const refused = await expectError(
			await api(token, 'GET', `/v3/whatsapp/conversations/${apiConversation}/window`),
			422,
		);
		expect(refused.message).toMatch(/^param\.id: /);
		const stranger = await seedWorkspace();
		await expectError(await api(stranger.token, 'GET', `/v3/whatsapp/conversations/${id}/window`), 404);
	});
});
