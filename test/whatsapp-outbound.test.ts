import { describe, expect, it } from 'vitest';
import { api } from './factories';
import { deliveriesTo, fakeMessages, whatsappConversation, whatsappWorkspace } from './whatsapp-outbound-helpers';

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
