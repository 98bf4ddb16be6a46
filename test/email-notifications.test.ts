import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { memberNotificationSettings, operators } from '../src/db/schema';
import { buildNotificationMail } from '../src/domain/channels/email/build-notification';
import { deliveryById } from '../src/domain/channels/email/deliveries';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../src/domain/channels/email/notification-settings';
import {
	deliverAgain,
	notificationsOf,
	notifiedOperators,
	recordedEventsOf,
	seedTeam,
	setNotifications,
	sorted,
	startNotifyingBot,
} from './email-notifications-helpers';
import { api, db, expectError, seedWorkspace } from './factories';
import { openSocket } from './sockets';

/** A conversation the admin opened, with the customer's first message. */
async function openConversation(token: string): Promise<string> {
	const res = await api(token, 'POST', '/v3/conversations', { contact: { email: 'eve@example.com', name: 'Eve' } });
	expect(res.status).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

async function presenceOf(token: string): Promise<Record<string, string>> {
	const { data } = (await (await api(token, 'GET', '/v3/team/presence')).json()) as {
		data: Array<{ operatorId: string; status: string }>;
	};
	return Object.fromEntries(data.map((p) => [p.operatorId, p.status]));
}

async function assign(token: string, conversationId: string, assigneeId: string) {
	const res = await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { assigneeId });
	expect(res.status, await res.clone().text()).toBe(200);
}

describe('GET and PUT /v3/me/notifications', () => {
	it('answers the defaults, then the member’s own partial update', async () => {
		const { member } = await seedTeam(['Ada']);
		const ada = member('ada');
		expect(await (await api(ada.token, 'GET', '/v3/me/notifications')).json()).toEqual({
			assignedWhileOffline: true,
			unanswered: false,
			unansweredAfterMinutes: 10,
			mentions: true,
			ruleNotifications: true,
		});
		const res = await api(ada.token, 'PUT', '/v3/me/notifications', { unanswered: true, unansweredAfterMinutes: 5 });
		expect(await res.json()).toEqual({ ...DEFAULT_NOTIFICATION_SETTINGS, unanswered: true, unansweredAfterMinutes: 5 });
		await setNotifications(ada, { mentions: false });
		expect(await (await api(ada.token, 'GET', '/v3/me/notifications')).json()).toMatchObject({
			unanswered: true,
			unansweredAfterMinutes: 5,
			mentions: false,
		});
	});

	it.each([
		[{ unansweredAfterMinutes: 0 }],
		[{ unansweredAfterMinutes: 1441 }],
		[{ unansweredAfterMinutes: 2.5 }],
		[{ mentions: 'yes' }],
		[{ operatorId: 'op_someone_else' }],
	])('refuses %j in the spec’s error body', async (body) => {
		const { admin } = await seedTeam([]);
		const error = await expectError(await api(admin.token, 'PUT', '/v3/me/notifications', body), 422);
		expect(error.error).toBeTruthy();
		expect(await (await api(admin.token, 'GET', '/v3/me/notifications')).json()).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
	});

	it('is each member’s own: another member’s or another workspace’s change is not seen', async () => {
		const { member } = await seedTeam(['Ada', 'Bob']);
		const stranger = await seedWorkspace();
		await setNotifications(member('ada'), { assignedWhileOffline: false, unanswered: true });
		await setNotifications(stranger, { mentions: false });
		expect(await (await api(member('bob').token, 'GET', '/v3/me/notifications')).json()).toEqual(
			DEFAULT_NOTIFICATION_SETTINGS,
		);
		expect(await (await api(member('ada').token, 'GET', '/v3/me/notifications')).json()).toMatchObject({
			assignedWhileOffline: false,
			unanswered: true,
			mentions: true,
		});
	});

	it('goes with a member who is removed', async () => {
		const { admin, member } = await seedTeam(['Ada']);
		await setNotifications(member('ada'), { unanswered: true });
		const settingsOf = () =>
			db
				.select()
				.from(memberNotificationSettings)
				.where(eq(memberNotificationSettings.operatorId, member('ada').operatorId));
		expect(await settingsOf()).toHaveLength(1);
		const res = await api(admin.token, 'DELETE', `/v3/team/members/${member('ada').operatorId}`);
		expect(res.status).toBeLessThan(300);
		expect(await settingsOf()).toEqual([]);
	});
});

describe('a conversation assigned to a member who is offline', () => {
	it('mails the offline member who wants it, once, and not one online, opted out, or assigning itself', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob', 'Cy']);
		const [ada, bob, cy] = [member('ada'), member('bob'), member('cy')];
		await setNotifications(bob, { assignedWhileOffline: false });
		// Online, its console's feed open: it sees the assignment there.
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${cy.token}` });
		await expect.poll(async () => (await presenceOf(admin.token))[cy.operatorId]).toBe('online');
		for (const to of [ada, bob, cy, admin])
			await assign(admin.token, await openConversation(admin.token), to.operatorId);
		const assigned = await recordedEventsOf(workspaceId, 'conversation.updated', 4);
		await deliverAgain(assigned);
		await deliverAgain(assigned);
		const sent = await notificationsOf(workspaceId);
		expect(sent.map((n) => n.operatorId)).toEqual([ada.operatorId]);
		expect(sent[0]?.dedupeKey).toMatch(new RegExp(`^notify:assigned:${ada.operatorId}:conv_\\w+:evt_\\w+$`));
		feed.close();
	});
});

describe('a mention in a private note', () => {
	it('mails the member it names who want it, never the author, a disabled member or a public message', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada Lovelace', 'Bob', 'Cy', 'Dee']);
		const [ada, bob, cy, dee] = [member('ada'), member('bob'), member('cy'), member('dee')];
		await setNotifications(cy, { mentions: false });
		await db.update(operators).set({ disabledAt: Date.now() }).where(eq(operators.id, dee.operatorId));
		const conversationId = await openConversation(admin.token);
		const post = (token: string, text: string, isPrivate: boolean) =>
			api(token, 'POST', '/v3/messages', { conversationId, text, private: isPrivate });
		expect((await post(bob.token, '@"Ada Lovelace" and @bob and @cy and @dee, see this', true)).status).toBe(201);
		// Not a note: a customer-facing message mentions nobody.
		expect((await post(admin.token, 'Thanks @bob', false)).status).toBe(201);
		await deliverAgain(await recordedEventsOf(workspaceId, 'message.created', 2));
		expect(await notifiedOperators(workspaceId)).toEqual([ada.operatorId]);
	});

	it('matches the right member only, by the local part of the e-mail', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Adam']);
		const adam = await db
			.select()
			.from(operators)
			.where(eq(operators.id, member('adam').operatorId))
			.get();
		const local = adam?.email.split('@')[0];
		const conversationId = await openConversation(admin.token);
		const res = await api(admin.token, 'POST', '/v3/messages', {
			conversationId,
			text: `over to @${local}.`,
			private: true,
		});
		expect(res.status).toBe(201);
		await deliverAgain(await recordedEventsOf(workspaceId, 'message.created'));
		expect(await notifiedOperators(workspaceId)).toEqual([member('adam').operatorId]);
	});
});

describe('a rule’s notify action', () => {
	async function notifyRule(token: string, operatorIds?: string[]) {
		const res = await api(token, 'POST', '/v3/automation-rules', {
			name: 'VIP alert',
			trigger: { kind: 'tag_applied', tag: 'VIP' },
			actions: [{ type: 'notify', text: 'A VIP is here', ...(operatorIds ? { operatorIds } : {}) }],
		});
		expect(res.status, await res.clone().text()).toBe(201);
	}

	it('mails the member it names who want it', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob', 'Cy']);
		await setNotifications(member('bob'), { ruleNotifications: false });
		await notifyRule(admin.token, [member('ada').operatorId, member('bob').operatorId]);
		const conversationId = await openConversation(admin.token);
		expect((await api(admin.token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`)).status).toBeLessThan(300);
		const notified = await recordedEventsOf(workspaceId, 'rule.notification');
		const notification = notified[0];
		await deliverAgain([...notified, ...notified]);
		const sent = await notificationsOf(workspaceId);
		expect(sent.map((n) => n.operatorId)).toEqual([member('ada').operatorId]);
		expect(sent[0]?.dedupeKey).toBe(`notify:rule:${member('ada').operatorId}:${conversationId}:${notification?.id}`);
	});

	it('mails the whole team when it names nobody, but no disabled member and no other workspace', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		const other = await seedTeam(['Zed']);
		await db
			.update(operators)
			.set({ disabledAt: Date.now() })
			.where(eq(operators.id, member('bob').operatorId));
		await notifyRule(admin.token);
		const conversationId = await openConversation(admin.token);
		expect((await api(admin.token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`)).status).toBeLessThan(300);
		await deliverAgain(await recordedEventsOf(workspaceId, 'rule.notification'));
		expect(await notifiedOperators(workspaceId)).toEqual(sorted([admin.operatorId, member('ada').operatorId]));
		expect(await notificationsOf(other.workspaceId)).toEqual([]);
	});

	it('never reaches an operator of another workspace it names', async () => {
		const { admin, workspaceId } = await seedTeam([]);
		const stranger = await seedWorkspace();
		const { processEvent } = await import('../src/queue/events-consumer');
		const { newEvent } = await import('../src/model/events');
		// Written as if a rule had named the stranger (the API refuses an unknown operator).
		const event = newEvent(
			'rule.notification',
			workspaceId,
			{ kind: 'rule', id: 'rul_x' },
			{
				rule: { id: 'rul_x', name: 'X' },
				text: 'hello',
				operatorIds: [stranger.operatorId, admin.operatorId],
				conversationId: null,
				contactId: null,
			},
		);
		await processEvent(env, event);
		expect((await notificationsOf(workspaceId)).map((n) => n.operatorId)).toEqual([admin.operatorId]);
		expect(await notificationsOf(stranger.workspaceId)).toEqual([]);
	});
});

describe('a bot’s notify step', () => {
	it('mails the members it names who want it (their one choice for rules and bots), saying the bot sent it', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob', 'Cy']);
		await setNotifications(member('bob'), { ruleNotifications: false });
		const conversationId = await openConversation(admin.token);
		await startNotifyingBot(admin.token, conversationId, {
			text: '{{ contact.name }} asked for *pricing*',
			operatorIds: [member('ada').operatorId, member('bob').operatorId],
		});
		const notified = await recordedEventsOf(workspaceId, 'bot.notification');
		await deliverAgain([...notified, ...notified]);
		const sent = await notificationsOf(workspaceId);
		expect(sent.map((n) => n.operatorId)).toEqual([member('ada').operatorId]);
		expect(sent[0]?.dedupeKey).toBe(`notify:rule:${member('ada').operatorId}:${conversationId}:${notified[0]?.id}`);
		const row = await deliveryById(db, sent[0]?.id ?? '');
		if (!row) throw new Error('no delivery');
		const built = await buildNotificationMail(db, row);
		if ('skip' in built) throw new Error(built.skip);
		expect(built.mail.subject).toBe('[Acme] Bot “Lead alert” notified you with Eve');
		expect(built.mail.text).toContain('Eve asked for *pricing*');
	});

	it('mails the whole team when it names nobody, but no disabled member', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		await db
			.update(operators)
			.set({ disabledAt: Date.now() })
			.where(eq(operators.id, member('bob').operatorId));
		const conversationId = await openConversation(admin.token);
		await startNotifyingBot(admin.token, conversationId, { text: 'A lead is waiting' });
		await deliverAgain(await recordedEventsOf(workspaceId, 'bot.notification'));
		expect(await notifiedOperators(workspaceId)).toEqual(sorted([admin.operatorId, member('ada').operatorId]));
	});
});
