// Alerts: what alerts each member (its settings), its Web Push subscriptions, who an event alerts (kind by
// kind, never a disabled member or whoever caused it), delivered to an open console's feed or by Web Push to
// the fake push service (test/fake-push/server.mjs), which checks the VAPID JWT, the encoding, the TTL and
// that the body decrypts with the subscription's keys. A subscription the service says is gone is dropped.
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { operators, pushSubscriptions } from '../src/db/schema';
import { alertTeam } from '../src/domain/alerts/deliver';
import { DEFAULT_ALERT_SETTINGS } from '../src/domain/alerts/settings';
import type { Alert } from '../src/model/alerts';
import type { DomainEvent } from '../src/model/events';
import { recordedEventsOf, seedTeam, startNotifyingBot } from './email-notifications-helpers';
import {
	api,
	db,
	expectError,
	type SeededOperator,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
} from './factories';
import { openSocket } from './sockets';

interface FakeSubscription {
	id: string;
	endpoint: string;
	expirationTime: null;
	keys: { p256dh: string; auth: string };
}

interface Received {
	ok: boolean;
	reason?: string;
	payload?: string;
	ttl?: number;
	jwt?: { aud: string; exp: number; sub: string };
}

const fake = (path: string, init?: RequestInit) => fetch(`${env.PUSH_RELAY_URL}${path}`, init);

/** A browser's subscription, made by the fake push service, saved for `member` through the API. */
async function subscribe(member: SeededOperator): Promise<FakeSubscription> {
	const subscription = (await (await fake('/__fake/subscriptions', { method: 'POST' })).json()) as FakeSubscription;
	const { id: _, ...body } = subscription;
	const res = await api(member.token, 'POST', '/v3/me/push-subscriptions', body);
	expect(res.status, await res.clone().text()).toBe(201);
	return subscription;
}

const receivedBy = async (subscription: FakeSubscription) =>
	(await (await fake(`/__fake/received/${subscription.id}`)).json()) as Received[];

const setAlerts = async (member: SeededOperator, body: Record<string, unknown>) => {
	const res = await api(member.token, 'PUT', '/v3/me/notifications/alerts', body);
	expect(res.status, await res.clone().text()).toBe(200);
};

/** Runs the alerting of each event (as the events consumer does) and returns whom each reached, by push. */
async function alertedBy(list: DomainEvent[]) {
	const results = [];
	for (const event of list) results.push(await alertTeam(env, db, event));
	return results;
}

const sorted = (ids: string[]) => [...ids].sort();

describe('GET and PUT /v3/me/notifications/alerts', () => {
	it('answers the defaults, then the member’s own partial update, leaving its mail settings as they were', async () => {
		const { member } = await seedTeam(['Ada']);
		const ada = member('ada');
		expect(await (await api(ada.token, 'GET', '/v3/me/notifications/alerts')).json()).toEqual(DEFAULT_ALERT_SETTINGS);
		await api(ada.token, 'PUT', '/v3/me/notifications', { mentions: false });
		await setAlerts(ada, { sound: true, rule: false });
		expect(await (await api(ada.token, 'GET', '/v3/me/notifications/alerts')).json()).toEqual({
			...DEFAULT_ALERT_SETTINGS,
			sound: true,
			rule: false,
		});
		expect(await (await api(ada.token, 'GET', '/v3/me/notifications')).json()).toMatchObject({ mentions: false });
		await api(ada.token, 'PUT', '/v3/me/notifications', { mentions: true });
		expect(await (await api(ada.token, 'GET', '/v3/me/notifications/alerts')).json()).toMatchObject({ sound: true });
	});

	it.each([[{ sound: 'yes' }], [{ message: null }], [{ everything: true }]])(
		'refuses %j and changes nothing',
		async (body) => {
			const { admin } = await seedTeam([]);
			await expectError(await api(admin.token, 'PUT', '/v3/me/notifications/alerts', body), 422);
			expect(await (await api(admin.token, 'GET', '/v3/me/notifications/alerts')).json()).toEqual(
				DEFAULT_ALERT_SETTINGS,
			);
		},
	);
});

describe('/v3/me/push-subscriptions', () => {
	it('gives the VAPID public key, and lists only the caller’s own subscriptions', async () => {
		const { admin, member } = await seedTeam(['Ada', 'Bob']);
		const stranger = await seedWorkspace();
		const mine = await subscribe(member('ada'));
		await subscribe(member('bob'));
		await subscribe(stranger);
		const list = (await (await api(member('ada').token, 'GET', '/v3/me/push-subscriptions')).json()) as {
			publicKey: string;
			data: Array<{ id: string; endpoint: string }>;
		};
		const point = Uint8Array.from(atob(list.publicKey.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
		expect([point.length, point[0]]).toEqual([65, 4]);
		expect(list.data.map((s) => s.endpoint)).toEqual([mine.endpoint]);
		const none = (await (await api(admin.token, 'GET', '/v3/me/push-subscriptions')).json()) as { data: unknown[] };
		expect(none.data).toEqual([]);
	});

	it('saves the same endpoint once, for whoever subscribed with it last', async () => {
		const { member, workspaceId } = await seedTeam(['Ada', 'Bob']);
		const subscription = await subscribe(member('ada'));
		const { id: _, ...body } = subscription;
		expect((await api(member('bob').token, 'POST', '/v3/me/push-subscriptions', body)).status).toBe(201);
		const rows = await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.workspaceId, workspaceId));
		expect(rows.map((r) => r.operatorId)).toEqual([member('bob').operatorId]);
	});

	it.each([
		['an http endpoint', { endpoint: 'http://push.example.com/x' }, 'endpoint'],
		['a private address', { endpoint: 'https://10.0.0.7/push/x' }, 'endpoint'],
		['a local name', { endpoint: 'https://push.internal/x' }, 'endpoint'],
		['no URL', { endpoint: 'not a url' }, 'endpoint'],
		['a short key', { keys: { p256dh: 'abc', auth: 'tBHItJI5svbpez7KI4CCXg' } }, 'keys'],
		['a key that is not base64url', { keys: { p256dh: `${'a'.repeat(86)}+`, auth: 'tBHItJI5svbpez7KI4CCXg' } }, 'keys'],
		['no keys', { keys: undefined }, 'keys'],
	])('refuses %s and saves nothing', async (_, change, field) => {
		const { admin, workspaceId } = await seedTeam([]);
		const subscription = (await (await fake('/__fake/subscriptions', { method: 'POST' })).json()) as FakeSubscription;
		const { id: __, ...valid } = subscription;
		const error = await expectError(
			await api(admin.token, 'POST', '/v3/me/push-subscriptions', { ...valid, ...change }),
			422,
		);
		expect(error.message).toContain(field);
		expect(await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.workspaceId, workspaceId))).toEqual([]);
	});

	it('deletes only the caller’s own', async () => {
		const { member } = await seedTeam(['Ada', 'Bob']);
		await subscribe(member('ada'));
		const [saved] = (
			(await (await api(member('ada').token, 'GET', '/v3/me/push-subscriptions')).json()) as {
				data: Array<{ id: string }>;
			}
		).data;
		await expectError(await api(member('bob').token, 'DELETE', `/v3/me/push-subscriptions/${saved?.id}`), 404);
		expect((await api(member('ada').token, 'DELETE', `/v3/me/push-subscriptions/${saved?.id}`)).status).toBe(204);
		await expectError(await api(member('ada').token, 'DELETE', `/v3/me/push-subscriptions/${saved?.id}`), 404);
	});
});

describe('who an event alerts', () => {
	it('a new conversation: every enabled member who wants it, none disabled, by Web Push that decrypts', async () => {
		const { workspaceId, member } = await seedTeam(['Ada', 'Bob', 'Cy']);
		const [ada, bob, cy] = [member('ada'), member('bob'), member('cy')];
		const subscriptions = await Promise.all([ada, bob, cy].map(subscribe));
		await setAlerts(bob, { newConversation: false });
		await db.update(operators).set({ disabledAt: Date.now() }).where(eq(operators.id, cy.operatorId));
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello there');
		const [result] = await alertedBy(await recordedEventsOf(workspaceId, 'conversation.created'));
		expect(result?.alert).toMatchObject({ kind: 'new_conversation', conversationId });
		// The admin has no subscription: it is alerted on no device.
		expect(result?.pushed).toEqual([ada.operatorId]);
		// What the push service received for Ada: signed by the key the API gives, decrypted by her browser's keys.
		const got = await receivedBy(subscriptions[0] as FakeSubscription);
		expect(got.length).toBeGreaterThan(0);
		for (const push of got) expect(push, push.reason).toMatchObject({ ok: true, ttl: 3600 });
		const alert = JSON.parse(got[0]?.payload ?? '{}') as Alert;
		expect(alert).toMatchObject({ kind: 'new_conversation', conversationId, id: result?.alert.id });
		expect(got[0]?.jwt?.sub).toBe('https://parley.test');
		expect(await receivedBy(subscriptions[1] as FakeSubscription)).toEqual([]);
		expect(await receivedBy(subscriptions[2] as FakeSubscription)).toEqual([]);
	});

	it('a new conversation in a group: only its members', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		await Promise.all([admin, member('ada'), member('bob')].map(subscribe));
		const group = (await (
			await api(admin.token, 'POST', '/v3/team/groups', { name: 'Billing', memberIds: [member('ada').operatorId] })
		).json()) as { id: string };
		const created = await api(admin.token, 'POST', '/v3/conversations', {
			contact: { email: 'eve@example.com', name: 'Eve' },
			groupId: group.id,
		});
		expect(created.status, await created.clone().text()).toBe(201);
		const [result] = await alertedBy(await recordedEventsOf(workspaceId, 'conversation.created'));
		// The admin made it: never alerted of its own doing.
		expect(result?.pushed).toEqual([member('ada').operatorId]);
		expect(result?.alert.title).toBe('Eve');
	});

	it('assigned: the assignee, unless it assigned itself; a customer’s message: the assignee alone', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		const [ada, bob] = [member('ada'), member('bob')];
		await Promise.all([admin, ada, bob].map(subscribe));
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		const assign = (token: string, assigneeId: string) =>
			api(token, 'PATCH', `/v3/conversations/${conversationId}`, { assigneeId });
		expect((await assign(admin.token, ada.operatorId)).status).toBe(200);
		expect((await assign(bob.token, bob.operatorId)).status).toBe(200);
		const [toAda, toBob] = await alertedBy(await recordedEventsOf(workspaceId, 'conversation.updated', 2));
		expect(toAda).toMatchObject({ alert: { kind: 'assigned', conversationId }, pushed: [ada.operatorId] });
		expect(toBob).toBeNull();
		const { visitorSend } = await import('./factories');
		expect((await visitorSend(visitor, conversationId, 'Are you there?', crypto.randomUUID())).status).toBe(201);
		const messages = await recordedEventsOf(workspaceId, 'message.created', 2);
		const results = await alertedBy(messages);
		const fromVisitor = results.find((r) => r?.alert.text === 'Are you there?');
		expect(fromVisitor).toMatchObject({ alert: { kind: 'message', conversationId }, pushed: [bob.operatorId] });
	});

	it('a mention in a private note: those it names who want it, never its author or a disabled member', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada Lovelace', 'Bob', 'Cy', 'Dee']);
		const [ada, bob, cy, dee] = [member('ada'), member('bob'), member('cy'), member('dee')];
		await Promise.all([ada, bob, cy, dee].map(subscribe));
		await setAlerts(cy, { mention: false });
		await db.update(operators).set({ disabledAt: Date.now() }).where(eq(operators.id, dee.operatorId));
		const created = await api(admin.token, 'POST', '/v3/conversations', {
			contact: { email: 'eve@example.com', name: 'Eve' },
		});
		const { id: conversationId } = (await created.json()) as { id: string };
		const note = '@"Ada Lovelace" and @bob and @cy and @dee, see this';
		const res = await api(bob.token, 'POST', '/v3/messages', { conversationId, text: note, private: true });
		expect(res.status).toBe(201);
		const results = await alertedBy(await recordedEventsOf(workspaceId, 'message.created'));
		expect(results[0]).toMatchObject({ alert: { kind: 'mention', text: note }, pushed: [ada.operatorId] });
	});

	it('a rule’s notify action: the members it names, or the whole team, through the same alerts', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		await Promise.all([admin, member('ada'), member('bob')].map(subscribe));
		await setAlerts(member('bob'), { rule: false });
		const rule = await api(admin.token, 'POST', '/v3/automation-rules', {
			name: 'VIP alert',
			trigger: { kind: 'tag_applied', tag: 'VIP' },
			actions: [{ type: 'notify', text: 'A VIP is here' }],
		});
		expect(rule.status, await rule.clone().text()).toBe(201);
		const created = await api(admin.token, 'POST', '/v3/conversations', {
			contact: { email: 'eve@example.com', name: 'Eve' },
		});
		const { id: conversationId } = (await created.json()) as { id: string };
		expect((await api(admin.token, 'PUT', `/v3/conversations/${conversationId}/tags/vip`)).status).toBeLessThan(300);
		const [result] = await alertedBy(await recordedEventsOf(workspaceId, 'rule.notification'));
		expect(result?.alert).toMatchObject({ kind: 'rule', title: 'VIP alert', text: 'A VIP is here', conversationId });
		expect(sorted(result?.pushed ?? [])).toEqual(sorted([admin.operatorId, member('ada').operatorId]));
	});

	it('a bot’s notify step: a bot.notification naming the bot and its run, reaching the member it names', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		await Promise.all([admin, member('ada'), member('bob')].map(subscribe));
		const created = await api(admin.token, 'POST', '/v3/conversations', {
			contact: { email: 'eve@example.com', name: 'Eve' },
		});
		const { id: conversationId, contactId } = (await created.json()) as { id: string; contactId: string };
		const { botId, runId } = await startNotifyingBot(admin.token, conversationId, {
			text: '{{ contact.name }} wants a demo',
			operatorIds: [member('ada').operatorId],
		});
		const [event] = await recordedEventsOf(workspaceId, 'bot.notification');
		expect(event).toMatchObject({
			actor: { kind: 'bot', id: botId },
			payload: {
				bot: { id: botId, name: 'Lead alert' },
				runId,
				text: 'Eve wants a demo',
				operatorIds: [member('ada').operatorId],
				conversationId,
				contactId,
			},
		});
		const [result] = await alertedBy(event ? [event] : []);
		expect(result?.alert).toMatchObject({
			kind: 'rule',
			title: 'Lead alert',
			text: 'Eve wants a demo',
			conversationId,
		});
		expect(result?.pushed).toEqual([member('ada').operatorId]);
		// The run went on to its next step once the event was committed.
		const runs = await api(admin.token, 'GET', `/v3/conversations/${conversationId}/bot-runs`);
		const { data } = (await runs.json()) as { data: Array<{ status: string; log: Array<{ stepId: string }> }> };
		expect(data[0]?.status).toBe('finished');
		expect(data[0]?.log.map((entry) => entry.stepId)).toContain('tell');
	});

	it('a bot’s notify step naming nobody: every enabled member who wants it, never a disabled one', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada', 'Bob', 'Cy']);
		await Promise.all([admin, member('ada'), member('bob'), member('cy')].map(subscribe));
		await setAlerts(member('bob'), { rule: false });
		await db
			.update(operators)
			.set({ disabledAt: Date.now() })
			.where(eq(operators.id, member('cy').operatorId));
		const created = await api(admin.token, 'POST', '/v3/conversations', {
			contact: { email: 'eve@example.com', name: 'Eve' },
		});
		const { id: conversationId } = (await created.json()) as { id: string };
		await startNotifyingBot(admin.token, conversationId, { text: 'A lead is waiting' });
		const [result] = await alertedBy(await recordedEventsOf(workspaceId, 'bot.notification'));
		expect(result?.alert).toMatchObject({ kind: 'rule', title: 'Lead alert', text: 'A lead is waiting' });
		expect(sorted(result?.pushed ?? [])).toEqual(sorted([admin.operatorId, member('ada').operatorId]));
	});

	it('reaches an open console on its feed instead of by push', async () => {
		const { workspaceId, member } = await seedTeam(['Ada', 'Bob']);
		const [ada, bob] = [member('ada'), member('bob')];
		await Promise.all([ada, bob].map(subscribe));
		await setAlerts(ada, { sound: true });
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${ada.token}` });
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		const [result] = await alertedBy(await recordedEventsOf(workspaceId, 'conversation.created'));
		expect(result?.inConsole).toContain(ada.operatorId);
		expect(result?.pushed).not.toContain(ada.operatorId);
		expect(result?.pushed).toContain(bob.operatorId);
		const frame = await feed.next('alert', (f) => f.alert.conversationId === conversationId);
		expect(frame).toMatchObject({ sound: true, alert: { kind: 'new_conversation' } });
		feed.close();
	});
});

describe('a subscription the push service says is gone', () => {
	it('is deleted at the push that gets 410, and the others are kept', async () => {
		const { workspaceId, member } = await seedTeam(['Ada']);
		const gone = await subscribe(member('ada'));
		const kept = await subscribe(member('ada'));
		expect((await fake(`/__fake/subscriptions/${gone.id}/gone`, { method: 'POST' })).status).toBe(200);
		const visitor = await startVisitor(workspaceId);
		await startVisitorConversation(visitor, 'Hello');
		await alertedBy(await recordedEventsOf(workspaceId, 'conversation.created'));
		const rows = await db
			.select({ endpoint: pushSubscriptions.endpoint })
			.from(pushSubscriptions)
			.where(
				and(eq(pushSubscriptions.workspaceId, workspaceId), eq(pushSubscriptions.operatorId, member('ada').operatorId)),
			);
		expect(rows.map((r) => r.endpoint)).toEqual([kept.endpoint]);
		expect((await receivedBy(kept)).every((r) => r.ok)).toBe(true);
	});
});

describe('GET /v3/me/unread', () => {
	it('counts the conversations with unread messages per view, in the caller’s workspace only', async () => {
		const { admin, workspaceId, member } = await seedTeam(['Ada']);
		const stranger = await seedWorkspace();
		const { seedConversation } = await import('./factories');
		await seedConversation(workspaceId, { unreadByOperators: 3, assigneeId: member('ada').operatorId });
		await seedConversation(workspaceId, { unreadByOperators: 1 });
		await seedConversation(workspaceId, { unreadByOperators: 2, assigneeId: admin.operatorId });
		await seedConversation(workspaceId, { unreadByOperators: 0 });
		await seedConversation(stranger.workspaceId, { unreadByOperators: 5 });
		expect(await (await api(member('ada').token, 'GET', '/v3/me/unread')).json()).toEqual({
			mine: 1,
			unassigned: 1,
			all: 3,
		});
		expect(await (await api(stranger.token, 'GET', '/v3/me/unread')).json()).toEqual({
			mine: 0,
			unassigned: 1,
			all: 1,
		});
	});
});
