import { describe, expect, it } from 'vitest';
import { conversationDeliveries, conversationWith, mailingWorkspace } from './email-outbound-helpers';
import { api } from './factories';

describe('replies in e-mail conversations', () => {
	it('mails a burst of the team’s messages as one mail, and shows it sent on each', async () => {
		const { token } = await mailingWorkspace();
		const { conversationId, email } = await conversationWith(token, 'email', ['Hello', 'Looking into it', 'Found it']);
		await expect
			.poll(async () => (await conversationDeliveries(conversationId)).map((d) => d.status), { timeout: 20_000 })
			.toEqual(['sent', 'sent', 'sent']);
		const deliveries = await conversationDeliveries(conversationId);
		expect(deliveries.every((d) => d.kind === 'reply' && d.recipient === email)).toBe(true);
		// One mail: the first claimed took the rest of the burst, so all three carry the same provider id.
		expect(new Set(deliveries.map((d) => d.providerMessageId)).size).toBe(1);
		const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
		const { data } = (await res.json()) as { data: Array<{ mail?: { status: string } }> };
		expect(data.map((m) => m.mail)).toEqual([{ status: 'sent' }, { status: 'sent' }, { status: 'sent' }]);
	});

	it('mails neither a private note nor a widget or API conversation’s messages', async () => {
		const { token } = await mailingWorkspace();
		const mailed = await conversationWith(token, 'email', []);
		const note = await api(token, 'POST', '/v3/messages', {
			conversationId: mailed.conversationId,
			text: 'For the team only',
			private: true,
		});
		expect(note.status).toBe(201);
		const other = await conversationWith(token, 'api', ['Not by mail']);
		// Then one mailed message: once it is sent, the events before it have all been handled.
		await api(token, 'POST', '/v3/messages', { conversationId: mailed.conversationId, text: 'For Ada' });
		await expect
			.poll(async () => (await conversationDeliveries(mailed.conversationId)).map((d) => [d.firstSeq, d.status]), {
				timeout: 20_000,
			})
			.toEqual([[2, 'sent']]);
		expect(await conversationDeliveries(other.conversationId)).toEqual([]);
	});
});
