import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { recordedEventsOf } from './email-notifications-helpers';
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

	it('knows the channel from each message event, and still mails from a room that does not name it', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const mailed = await conversationWith(token, 'email', ['Named']);
		const widget = await conversationWith(token, 'widget', ['Not by mail']);
		// A room imported before rooms kept their channel: its events name none, and the consumer reads D1.
		const older = await conversationWith(token, 'email', ['Named too']);
		await runInDurableObject(env.CONVERSATION_ROOM.getByName(older.conversationId), (_instance, state) => {
			state.storage.sql.exec('UPDATE room SET channel = NULL');
		});
		await api(token, 'POST', '/v3/messages', { conversationId: older.conversationId, text: 'Unnamed' });
		const named = (await recordedEventsOf(workspaceId, 'message.created', 4)).map((event) =>
			event.type === 'message.created' ? `${event.payload.message.text}: ${event.payload.channel}` : '',
		);
		expect(named.sort()).toEqual(['Named too: email', 'Named: email', 'Not by mail: widget', 'Unnamed: null']);
		for (const [{ conversationId }, mails] of [
			[mailed, 1],
			[older, 2],
		] as const) {
			await expect
				.poll(async () => (await conversationDeliveries(conversationId)).filter((d) => d.status === 'sent').length, {
					timeout: 20_000,
				})
				.toBe(mails);
		}
		expect(await conversationDeliveries(widget.conversationId)).toEqual([]);
	});
});
