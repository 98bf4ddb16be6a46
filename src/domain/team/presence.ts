/**
 * Presence: whether an operator can take a conversation now. The workspace's hub (durable-objects/
 * hub-presence.ts) holds each operator's status; this module is the API's and the automation's way to it,
 * and answers "who is available now" for bots' decisions and assignment.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { operators } from '../../db/schema';
import { iso } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { PRESENCE_STATUSES, type PresenceStatus } from '../../model/presence';
import { workspaceHub } from '../objects';

export const presenceSchema = z
	.object({
		operatorId: z.string().openapi({ description: 'The operator.', example: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		status: z.enum(PRESENCE_STATUSES).openapi({
			description: 'online, away, busy or offline (also after its console has been gone for the grace period).',
		}),
		changedAt: z.string().openapi({ description: 'When the status last changed (ISO 8601).' }),
	})
	.openapi('Presence');

export type PresenceView = z.infer<typeof presenceSchema>;

export const statusBodySchema = z
	.strictObject({ status: z.enum(PRESENCE_STATUSES).openapi({ description: 'The status to show the team.' }) })
	.openapi('PresenceStatus');

export const availableSchema = z
	.object({
		operatorId: z.string().openapi({ description: 'The operator.' }),
		name: z.string().openapi({ description: 'Its name.' }),
		openConversations: z.number().int().openapi({ description: 'The open and pending conversations it has.' }),
		capacity: z.number().int().nullable().openapi({ description: 'The most it takes; null for no limit.' }),
	})
	.openapi('AvailableOperator');

export type AvailableOperator = z.infer<typeof availableSchema>;

function hub(env: Env, workspaceId: string) {
	return workspaceHub(env, workspaceId);
}

/** The operator's own status, as it chose it (any valid token). */
export async function setOwnStatus(env: Env, workspaceId: string, operatorId: string, status: PresenceStatus) {
	const entry = await hub(env, workspaceId).setStatus(workspaceId, operatorId, status);
	return { operatorId, status: entry.status, changedAt: iso(entry.changedAt) } satisfies PresenceView;
}

/** Every operator's presence in the workspace; one never seen is offline and absent. */
export async function teamPresence(env: Env, workspaceId: string): Promise<PresenceView[]> {
	const entries = await hub(env, workspaceId).presenceOf();
	return entries.map((e) => ({ operatorId: e.operatorId, status: e.status, changedAt: iso(e.changedAt) }));
}

/**
 * Turns an operator that was disabled or deleted offline at once. Best effort: the change is committed, and
 * a hub that cannot be reached now leaves a status that `availableOperators` ignores anyway (it reads who is
 * enabled from D1).
 */
export async function presenceRemoved(env: Env, workspaceId: string, operatorId: string, actor: Actor) {
	try {
		await hub(env, workspaceId).removeOperator(workspaceId, operatorId, actor);
	} catch (error) {
		console.error('could not turn a removed operator offline', operatorId, error);
	}
}

/**
 * An operator's load in a select from `operators`: the open and pending conversations assigned to it. Written
 * out, as drizzle would render a column of the outer table unqualified, which the subquery would read as its own.
 */
export const operatorLoad = sql<number>`(SELECT count(*) FROM conversations c WHERE c.workspace_id = operators.workspace_id AND c.assignee_id = operators.id AND c.status != 'closed')`;

/**
 * Who can take a conversation now: online, enabled, in the group when one is given, and under its capacity
 * (open and pending conversations assigned to it), least loaded first. One hub call and one D1 statement.
 */
export async function availableOperators(
	env: Env,
	db: Database,
	workspaceId: string,
	options: { groupId?: string } = {},
): Promise<AvailableOperator[]> {
	const online = (await hub(env, workspaceId).presenceOf())
		.filter((p) => p.status === 'online')
		.map((p) => p.operatorId);
	if (online.length === 0) return [];
	const load = operatorLoad;
	const rows: Array<{ id: string; name: string; capacity: number | null; load: number }> = [];
	for (let i = 0; i < online.length; i += 90) {
		rows.push(
			...(await db
				.select({ id: operators.id, name: operators.name, capacity: operators.capacity, load })
				.from(operators)
				.where(
					and(
						eq(operators.workspaceId, workspaceId),
						inArray(operators.id, online.slice(i, i + 90)),
						isNull(operators.disabledAt),
						options.groupId === undefined
							? undefined
							: sql`EXISTS (SELECT 1 FROM operator_groups og WHERE og.workspace_id = ${workspaceId} AND og.operator_id = ${operators.id} AND og.group_id = ${options.groupId})`,
					),
				)),
		);
	}
	return rows
		.filter((r) => r.capacity === null || r.load < r.capacity)
		.sort((a, b) => a.load - b.load || a.name.localeCompare(b.name))
		.map((r) => ({ operatorId: r.id, name: r.name, openConversations: r.load, capacity: r.capacity }));
}
