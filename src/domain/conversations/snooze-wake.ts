/** The room's side of a snooze (see snooze.ts): its timer fired. Apart from snooze.ts, which changes.ts imports. */
import { and, eq } from 'drizzle-orm';
import { conversations } from '../../db/schema';
import { workspaceDb } from '../../db/shards';
import { SYSTEM } from '../../model/actor';
import { updateConversation } from './changes';

/**
 * The room's snooze timer fired: reopens the conversation (as the system) if it is still pending and snoozed
 * until exactly `until`; a snooze ended, moved or replaced since leaves it as it is.
 */
export async function wakeSnoozed(
	env: Env,
	workspaceId: string,
	conversationId: string,
	until: number,
	now = Date.now(),
): Promise<boolean> {
	const db = await workspaceDb(env, workspaceId);
	const row = await db
		.select({ status: conversations.status, snoozedUntil: conversations.snoozedUntil })
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, conversationId)))
		.get();
	if (row?.status !== 'pending' || row.snoozedUntil !== until) return false;
	await updateConversation(env, db, workspaceId, conversationId, { status: 'open' }, SYSTEM, now);
	return true;
}
