/** What the notification mail tests share: a team with names, its settings, the deliveries it was given. */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { events, mailDeliveries, operators } from '../src/db/schema';
import { iso } from '../src/lib/ids';
import { type DomainEvent, domainEventSchema } from '../src/model/events';
import { processEvent } from '../src/queue/events-consumer';
import { mailingWorkspace } from './email-outbound-helpers';
import { api, db, type SeededOperator, seedOperator } from './factories';

export interface Team {
	admin: SeededOperator;
	workspaceId: string;
	/** A member by its first name, lower-case (each with its own token, addressed as `<name>.<id>@acme.test`). */
	member: (first: string) => SeededOperator;
}

/** A workspace that can send, with an admin and a member per name (`Ada Lovelace` is `ada…@acme.test`). */
export async function seedTeam(names: string[]): Promise<Team> {
	const admin = await mailingWorkspace();
	const members: Record<string, SeededOperator> = {};
	for (const name of names) {
		const member = await seedOperator(admin.workspaceId, ['conversations:read', 'messages:send']);
		const first = name.split(' ')[0]?.toLowerCase() ?? name;
		await db
			.update(operators)
			.set({ name, email: `${first}.${member.operatorId.slice(-6).toLowerCase()}@acme.test` })
			.where(eq(operators.id, member.operatorId));
		members[first] = member;
	}
	const member = (first: string) => {
		const found = members[first];
		if (!found) throw new Error(`no member ${first}`);
		return found;
	};
	return { admin, workspaceId: admin.workspaceId, member };
}

/** Saves a member's own notification settings through the API. */
export async function setNotifications(member: SeededOperator, settings: Record<string, unknown>): Promise<void> {
	const res = await api(member.token, 'PUT', '/v3/me/notifications', settings);
	expect(res.status, await res.clone().text()).toBe(200);
}

/** The workspace's notification deliveries: to whom (operator id) and under which key. */
export async function notificationsOf(workspaceId: string) {
	return db
		.select({ operatorId: mailDeliveries.operatorId, dedupeKey: mailDeliveries.dedupeKey, id: mailDeliveries.id })
		.from(mailDeliveries)
		.where(and(eq(mailDeliveries.workspaceId, workspaceId), eq(mailDeliveries.kind, 'notification')));
}

/** The operator ids the workspace's notifications went to, sorted. */
export async function notifiedOperators(workspaceId: string): Promise<string[]> {
	return (await notificationsOf(workspaceId)).map((n) => n.operatorId ?? '').sort();
}

/**
 * The workspace's recorded events of `type` (waited for), as the events consumer parses them. A test hands
 * them to `processEvent` itself: idempotent by id, so once it returns, whatever the event enqueues is there,
 * whether the Queue's own consumer got to it first or not.
 */
export async function recordedEventsOf(workspaceId: string, type: DomainEvent['type'], count = 1) {
	const read = () =>
		db
			.select()
			.from(events)
			.where(and(eq(events.workspaceId, workspaceId), eq(events.type, type)));
	await expect.poll(async () => (await read()).length).toBeGreaterThanOrEqual(count);
	return (await read()).map((row) =>
		domainEventSchema.parse({
			id: row.id,
			type: row.type,
			workspaceId: row.workspaceId,
			occurredAt: iso(row.occurredAt),
			actor: row.actor ?? undefined,
			payload: row.payload,
		}),
	);
}

/** Hands each event to the consumer's handler, as a (re)delivery would. */
export async function deliverAgain(list: DomainEvent[]): Promise<void> {
	for (const event of list) await processEvent(env, event);
}

export const sorted = (ids: string[]) => [...ids].sort();

/**
 * Starts, by hand, a published bot whose first step is `notify` (its fields given) and whose second ends the
 * run, in the conversation: the bot's notify step as an operator's team meets it.
 */
export async function startNotifyingBot(
	token: string,
	conversationId: string,
	notify: Record<string, unknown>,
	name = 'Lead alert',
): Promise<{ botId: string; runId: string }> {
	const created = await api(token, 'POST', '/v3/bots', {
		name,
		trigger: { kind: 'manual' },
		definition: {
			start: 'tell',
			steps: [
				{ id: 'tell', type: 'notify', ...notify, next: 'bye' },
				{ id: 'bye', type: 'end' },
			],
		},
	});
	expect(created.status, await created.clone().text()).toBe(201);
	const { id: botId } = (await created.json()) as { id: string };
	expect((await api(token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);
	const started = await api(token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId });
	expect(started.status, await started.clone().text()).toBe(201);
	return { botId, runId: ((await started.json()) as { runId: string }).runId };
}
