import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations, emailSettings, groups, messages, operatorGroups, operators } from '../src/db/schema';
import { buildNotificationMail } from '../src/domain/channels/email/build-notification';
import { claimDelivery, deliveryById } from '../src/domain/channels/email/deliveries';
import { sweepUnanswered, UNANSWERED_WINDOW_MS } from '../src/domain/channels/email/notifications';
import { processDelivery } from '../src/domain/channels/email/sender';
import { newId } from '../src/lib/ids';
import { notificationsOf, notifiedOperators, seedTeam, setNotifications, sorted } from './email-notifications-helpers';
import { db, seedConversation } from './factories';

const MINUTE = 60_000;

/** A conversation that started `minutesAgo` (relative to `now`), its customer waiting since, nobody on it. */
function waitingConversation(workspaceId: string, now: number, minutesAgo: number, groupId: string | null = null) {
	const at = now - minutesAgo * MINUTE;
	return seedConversation(workspaceId, { waitingSince: at, groupId }, at);
}

describe('a new conversation nobody took within N minutes (the cron’s sweep)', () => {
	it('mails each member who wants it after its own N, once, and no one who does not', async () => {
		const now = Date.now();
		const { workspaceId, member } = await seedTeam(['Ada', 'Bob', 'Cy', 'Dee']);
		await setNotifications(member('ada'), { unanswered: true, unansweredAfterMinutes: 10 });
		await setNotifications(member('bob'), { unanswered: true, unansweredAfterMinutes: 30 });
		await setNotifications(member('dee'), { unanswered: true, unansweredAfterMinutes: 10 });
		await db
			.update(operators)
			.set({ disabledAt: now })
			.where(eq(operators.id, member('dee').operatorId));
		// Cy keeps the default: off.
		const conversationId = await waitingConversation(workspaceId, now, 11);
		await sweepUnanswered(env, db, now - 2 * MINUTE);
		expect(await notificationsOf(workspaceId)).toEqual([]);
		await sweepUnanswered(env, db, now);
		await sweepUnanswered(env, db, now + MINUTE);
		expect(await notifiedOperators(workspaceId)).toEqual([member('ada').operatorId]);
		await sweepUnanswered(env, db, now + 20 * MINUTE);
		expect(await notifiedOperators(workspaceId)).toEqual(sorted([member('ada').operatorId, member('bob').operatorId]));
		const keys = (await notificationsOf(workspaceId)).map((n) => n.dedupeKey);
		expect(keys).toContain(`notify:unanswered:${member('ada').operatorId}:${conversationId}:${conversationId}`);
	});

	it('mails nothing about a conversation someone took, answered or closed, or that no customer wrote in', async () => {
		const now = Date.now();
		const { admin, workspaceId, member } = await seedTeam(['Ada']);
		await setNotifications(member('ada'), { unanswered: true, unansweredAfterMinutes: 5 });
		const at = now - 6 * MINUTE;
		await seedConversation(workspaceId, { waitingSince: at, assigneeId: admin.operatorId }, at);
		await seedConversation(workspaceId, { waitingSince: at, firstResponseAt: at + 1000 }, at);
		await seedConversation(workspaceId, { waitingSince: at, status: 'closed' }, at);
		await seedConversation(workspaceId, { waitingSince: null }, at);
		await sweepUnanswered(env, db, now);
		expect(await notificationsOf(workspaceId)).toEqual([]);
	});

	it('leaves out a conversation long past its due time (a member who just turned the mail on)', async () => {
		const now = Date.now();
		const { workspaceId, member } = await seedTeam(['Ada']);
		await setNotifications(member('ada'), { unanswered: true, unansweredAfterMinutes: 5 });
		await waitingConversation(workspaceId, now, 5 + UNANSWERED_WINDOW_MS / MINUTE + 1);
		await sweepUnanswered(env, db, now);
		expect(await notificationsOf(workspaceId)).toEqual([]);
	});

	it('mails only the members of the conversation’s group, and never another workspace’s', async () => {
		const now = Date.now();
		const { workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		const other = await seedTeam(['Zed']);
		for (const who of [member('ada'), member('bob'), other.member('zed')]) {
			await setNotifications(who, { unanswered: true, unansweredAfterMinutes: 1 });
		}
		const groupId = newId('grp', now);
		await db.insert(groups).values({ id: groupId, workspaceId, name: 'Billing', createdAt: now });
		await db.insert(operatorGroups).values({ workspaceId, operatorId: member('bob').operatorId, groupId });
		await waitingConversation(workspaceId, now, 2, groupId);
		await sweepUnanswered(env, db, now);
		expect(await notifiedOperators(workspaceId)).toEqual([member('bob').operatorId]);
		expect(await notificationsOf(other.workspaceId)).toEqual([]);
	});

	it('skips the mail when someone took the conversation between the sweep and the send', async () => {
		const now = Date.now();
		const { admin, workspaceId, member } = await seedTeam(['Ada']);
		await setNotifications(member('ada'), { unanswered: true, unansweredAfterMinutes: 1 });
		const conversationId = await waitingConversation(workspaceId, now, 2);
		await sweepUnanswered(env, db, now);
		const [delivery] = await notificationsOf(workspaceId);
		await db.update(conversations).set({ assigneeId: admin.operatorId }).where(eq(conversations.id, conversationId));
		// Built as the consumer builds it once it claims the delivery (not raced against the Queue's own consumer).
		const row = await deliveryById(db, delivery?.id ?? '');
		if (!row) throw new Error('no delivery');
		expect(await buildNotificationMail(db, row)).toEqual({
			skip: 'someone took or answered the conversation meanwhile',
		});
	});
});

describe('sending a notification', () => {
	it('goes out through the binding: what happened, the customer’s words escaped, the console link', async () => {
		const now = Date.now();
		const { workspaceId, member } = await seedTeam(['Ada']);
		await setNotifications(member('ada'), { unanswered: true, unansweredAfterMinutes: 1 });
		const conversationId = await waitingConversation(workspaceId, now, 2);
		await db.insert(messages).values({
			id: newId('msg', now),
			workspaceId,
			conversationId,
			seq: 1,
			authorKind: 'contact',
			body: 'Is my <b>order</b> & invoice ready?',
			attachments: [],
			private: false,
			createdAt: now,
		});
		await sweepUnanswered(env, db, now);
		const [delivery] = await notificationsOf(workspaceId);
		const id = delivery?.id ?? '';
		const row = await deliveryById(db, id);
		expect(row).toMatchObject({ kind: 'notification', operatorId: member('ada').operatorId, conversationId: null });
		const ada = await db
			.select()
			.from(operators)
			.where(eq(operators.id, member('ada').operatorId))
			.get();
		expect(row?.recipient).toBe(ada?.email);
		if (!row) throw new Error('no delivery');
		const built = await buildNotificationMail(db, row);
		if ('skip' in built) throw new Error(built.skip);
		expect(built.mail.subject).toBe('[Acme] A new conversation has waited 1 minute with nobody on it');
		expect(built.mail.headers['Auto-Submitted']).toBe('auto-generated');
		expect(built.mail.text).toContain('> Is my <b>order</b> & invoice ready?');
		expect(built.mail.html).toContain('Is my &lt;b&gt;order&lt;/b&gt; &amp; invoice ready?');
		expect(built.mail.text).toContain(`https://parley.test/console/conversations/${conversationId}`);
		// The Queue's consumer may have claimed it already: either way it goes out once, through the local binding.
		await processDelivery(env, db, id);
		await expect.poll(async () => (await deliveryById(db, id))?.status).toBe('sent');
		expect((await deliveryById(db, id))?.providerMessageId).toMatch(/^<.+@acme\.test>$/);
		expect(await claimDelivery(db, id)).toBeNull();
	});

	it('is skipped with the existing reason while the workspace has no sender', async () => {
		const now = Date.now();
		const { workspaceId, member } = await seedTeam(['Ada']);
		await db.update(emailSettings).set({ senderAddress: null }).where(eq(emailSettings.workspaceId, workspaceId));
		await setNotifications(member('ada'), { unanswered: true, unansweredAfterMinutes: 1 });
		await waitingConversation(workspaceId, now, 2);
		await sweepUnanswered(env, db, now);
		const [delivery] = await notificationsOf(workspaceId);
		await processDelivery(env, db, delivery?.id ?? '');
		await expect.poll(async () => (await deliveryById(db, delivery?.id ?? ''))?.status).toBe('skipped');
		expect((await deliveryById(db, delivery?.id ?? ''))?.error).toBe('no sender set');
	});
});
