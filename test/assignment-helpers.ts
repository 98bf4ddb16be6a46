/** What the assignment tests share: a team whose presence is written straight into the workspace's hub. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { operators } from '../src/db/schema';
import type { PresenceStatus } from '../src/model/presence';
import { db, seedOperator } from './factories';

/** Operators whose presence is written straight into the hub (with no grace period running: a console stands in). */
export async function team(workspaceId: string, statuses: PresenceStatus[], capacity: number | null = null) {
	const ids: string[] = [];
	for (const _ of statuses)
		ids.push((await seedOperator(workspaceId, ['conversations:read', 'messages:send'])).operatorId);
	if (capacity !== null) for (const id of ids) await db.update(operators).set({ capacity }).where(eq(operators.id, id));
	await runInDurableObject(env.WORKSPACE_HUB.getByName(workspaceId), async (_instance, state) => {
		for (const [i, id] of ids.entries()) {
			state.storage.sql.exec(
				'INSERT OR REPLACE INTO presence (operator_id, workspace_id, status, chosen, changed_at) VALUES (?, ?, ?, ?, ?)',
				id,
				workspaceId,
				statuses[i],
				statuses[i],
				Date.now(),
			);
		}
	});
	return ids;
}
