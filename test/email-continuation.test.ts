import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { campaignActor } from '../src/domain/campaigns/sending';
import { postMessage } from '../src/domain/conversations/live';
import { newId } from '../src/lib/ids';
import {
	continuationDueAt,
	deliveries,
	elapse,
	MINUTE,
	setContinuation,
	visitorRead,
	widgetConversation,
} from './email-continuation-helpers';
import { api, reply, seedWorkspace, visitorSend, withTableOffline } from './factories';

/**
 * The widget conversation continues by e-mail: the team's messages a visitor has not seen within the
 * workspace's delay are enqueued as one continuation mail (a `mail_deliveries` row; building and sending it
 * is the mail consumer's). Each test moves its room's clock with `elapse`, never sleeps.
 */

const DELAY_MINUTES = 10;
const ADDRESS = 'ada@example.com';

/** A workspace with a 10-minute delay, and a widget conversation whose contact typed ADDRESS in the pre-chat form. */
async function setUp() {
	const { workspaceId, token } = await seedWorkspace();
	await setContinuation(workspaceId, { delaySeconds: DELAY_MINUTES * 60 });
	const { visitor, conversationId } = await widgetConversation(workspaceId, { email: ADDRESS });
	return { workspaceId, token, visitor, conversationId };
}

function note(token: string, conversationId: string, text: string) {
	return api(token, 'POST', '/v3/messages', { conversationId, text, private: true });
}

describe('the continuation timer', () => {
	it('is due at the first unseen reply plus the delay, and a burst moves it no later', async () => {
		const { token, conversationId } = await setUp();
		// The stored message, as the API answered it (the factory types only its id and seq).
		const first = (await reply(token, conversationId, 'Yes, in green and blue.')) as unknown as { createdAt: string };
		const dueAt = Date.parse(first.createdAt) + DELAY_MINUTES * MINUTE;
		expect(await continuationDueAt(conversationId)).toBe(dueAt);
		await reply(token, conversationId, 'Which size?');
		await reply(token, conversationId, 'We ship tomorrow.');
		expect(await continuationDueAt(conversationId)).toBe(dueAt);
	});

	it('mails an unseen reply once the delay has passed, not before', async () => {
		const { workspaceId, token, conversationId } = await setUp();
		const { seq } = await reply(token, conversationId, 'Yes, in green and blue.');
		await elapse(conversationId, (DELAY_MINUTES / 2) * MINUTE);
		expect(await deliveries(conversationId)).toEqual([]);
		await elapse(conversationId, (DELAY_MINUTES / 2) * MINUTE);
		const contactId = (await env.DB.prepare('SELECT contact_id FROM conversations WHERE id = ?')
			.bind(conversationId)
			.first<string>('contact_id')) as string;
		expect(await deliveries(conversationId)).toEqual([
			{
				workspace_id: workspaceId,
				kind: 'continuation',
				recipient: ADDRESS,
				first_seq: seq,
				last_seq: seq,
				dedupe_key: `continuation:${conversationId}:${seq}`,
				contact_id: contactId,
			},
		]);
		// Done with: no timer is left, and another alarm mails nothing more.
		expect(await continuationDueAt(conversationId)).toBeNull();
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toHaveLength(1);
	});

	it('mails a burst of replies as one delivery', async () => {
		const { token, conversationId } = await setUp();
		const seqs: number[] = [];
		for (const text of ['Yes.', 'In green and blue.', 'Which size?', 'We ship tomorrow.']) {
			seqs.push((await reply(token, conversationId, text)).seq);
		}
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toMatchObject([{ first_seq: seqs[0], last_seq: seqs[3] }]);
	});

	it('mails nothing to a visitor who came back and read before the delay', async () => {
		const { token, visitor, conversationId } = await setUp();
		await reply(token, conversationId, 'Yes.');
		const { seq } = await reply(token, conversationId, 'Which size?');
		await elapse(conversationId, (DELAY_MINUTES / 2) * MINUTE);
		await visitorRead(visitor, conversationId, seq);
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toEqual([]);
		expect(await continuationDueAt(conversationId)).toBeNull();
	});

	it('mails only the replies a visitor has not read', async () => {
		const { token, visitor, conversationId } = await setUp();
		const read = await reply(token, conversationId, 'Yes.');
		const unread = await reply(token, conversationId, 'Which size?');
		const last = await reply(token, conversationId, 'We ship tomorrow.');
		await visitorRead(visitor, conversationId, read.seq);
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toMatchObject([{ first_seq: unread.seq, last_seq: last.seq }]);
	});

	it('waits the whole delay for a reply written after the ones the visitor read', async () => {
		const { token, visitor, conversationId } = await setUp();
		const early = await reply(token, conversationId, 'Yes.');
		await elapse(conversationId, (DELAY_MINUTES / 2) * MINUTE);
		await visitorRead(visitor, conversationId, early.seq);
		const later = await reply(token, conversationId, 'Which size?');
		// The timer set by the first reply comes due; the unseen one is only half its delay old.
		await elapse(conversationId, (DELAY_MINUTES / 2) * MINUTE);
		expect(await deliveries(conversationId)).toEqual([]);
		await elapse(conversationId, (DELAY_MINUTES / 2) * MINUTE);
		expect(await deliveries(conversationId)).toMatchObject([{ first_seq: later.seq, last_seq: later.seq }]);
	});

	it('mails a later burst on its own, with only its new messages', async () => {
		const { token, visitor, conversationId } = await setUp();
		const first = await reply(token, conversationId, 'Yes.');
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		// The visitor answers by the widget without reading; then the team writes twice more.
		const answer = await visitorSend(visitor, conversationId, 'Blue, please.', crypto.randomUUID());
		expect(answer.status).toBe(201);
		const second = await reply(token, conversationId, 'Blue it is.');
		const third = await reply(token, conversationId, 'Shipped.');
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toMatchObject([
			{ first_seq: first.seq, last_seq: first.seq, dedupe_key: `continuation:${conversationId}:${first.seq}` },
			{ first_seq: second.seq, last_seq: third.seq, dedupe_key: `continuation:${conversationId}:${third.seq}` },
		]);
	});
});

describe('a continuation that cannot be enqueued', () => {
	it('is tried again after a backoff, and then enqueued once', async () => {
		const { token, conversationId } = await setUp();
		const { seq } = await reply(token, conversationId, 'Yes.');
		vi.spyOn(console, 'error').mockImplementation(() => undefined);
		await withTableOffline('mail_deliveries', async () => {
			await elapse(conversationId, DELAY_MINUTES * MINUTE);
			// The retry is due 5 s after the failure (the room timers' backoff), not a whole delay later.
			const retryAt = await continuationDueAt(conversationId);
			expect(retryAt).not.toBeNull();
			expect((retryAt ?? 0) - Date.now()).toBeLessThanOrEqual(5_000);
		});
		vi.restoreAllMocks();
		await elapse(conversationId, 10_000);
		expect(await deliveries(conversationId)).toMatchObject([{ first_seq: seq, last_seq: seq }]);
		expect(await continuationDueAt(conversationId)).toBeNull();
	});
});

describe('what a continuation carries', () => {
	it('never counts a private note or the visitor’s own messages', async () => {
		const { token, visitor, conversationId } = await setUp();
		expect((await note(token, conversationId, 'Check the stock first')).status).toBe(201);
		expect((await visitorSend(visitor, conversationId, 'Hello?', crypto.randomUUID())).status).toBe(201);
		expect(await continuationDueAt(conversationId)).toBeNull();
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toEqual([]);
		// A reply, then a note: the mail ends at the reply.
		const answer = await reply(token, conversationId, 'In stock.');
		expect((await note(token, conversationId, 'Told them')).status).toBe(201);
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toMatchObject([{ first_seq: answer.seq, last_seq: answer.seq }]);
	});

	it('mails a bot’s messages like the team’s: the widget’s automatic greeting', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await setContinuation(workspaceId, { delaySeconds: 60 });
		const settings = await api(token, 'PUT', '/v3/widget/settings', {
			autoMessage: 'Thanks! We reply within the hour.',
		});
		expect(settings.status).toBe(200);
		// The start posts the visitor's message (1), then the greeting as the bot (2).
		const { conversationId } = await widgetConversation(workspaceId, { email: ADDRESS });
		await elapse(conversationId, MINUTE);
		expect(await deliveries(conversationId)).toMatchObject([{ recipient: ADDRESS, first_seq: 2, last_seq: 2 }]);
	});

	it('never carries a campaign’s message: it goes by mail only as an e-mail campaign, with its opt-out', async () => {
		const { workspaceId, token, conversationId } = await setUp();
		const campaignId = newId('cmp');
		const posted = await postMessage(env, {
			workspaceId,
			conversationId,
			authorKind: 'bot',
			authorId: campaignId,
			text: 'Our summer sale starts today.',
			attachments: [],
			clientMessageId: null,
			actor: campaignActor(campaignId),
		});
		expect(posted.message.seq).toBeGreaterThan(0);
		expect(await continuationDueAt(conversationId)).toBeNull();
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toEqual([]);
		// A reply after it is mailed, and the mail's range starts at the reply.
		const answer = await reply(token, conversationId, 'Ask us about sizes.');
		await elapse(conversationId, DELAY_MINUTES * MINUTE);
		expect(await deliveries(conversationId)).toMatchObject([{ first_seq: answer.seq, last_seq: answer.seq }]);
	});

	it('leaves conversations on other channels alone', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await setContinuation(workspaceId, { delaySeconds: 60 });
		const res = await api(token, 'POST', '/v3/conversations', {
			contact: { email: ADDRESS },
			message: { text: 'Your order shipped.' },
		});
		const conversationId = ((await res.json()) as { id: string }).id;
		await reply(token, conversationId, 'Anything else?');
		expect(await continuationDueAt(conversationId)).toBeNull();
		await elapse(conversationId, MINUTE);
		expect(await deliveries(conversationId)).toEqual([]);
	});
});
