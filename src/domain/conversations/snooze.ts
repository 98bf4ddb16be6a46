/**
 * Snooze: an operator sets a conversation aside until a time. It is `pending` meanwhile, and its room's
 * `snooze` timer (one of the room's timers over its single alarm) reopens it then, unless something else
 * changed its status first (which ends the snooze: see `updateConversation`).
 */
import { NotFound } from '../../lib/errors';
import { conversationRoom } from '../objects';

/** Furthest a snooze may reach. */
export const MAX_SNOOZE_MS = 366 * 24 * 60 * 60_000;

/** Sets the room's snooze timer to `until` (replacing an earlier snooze's); NotFound outside the workspace. */
export async function snoozeRoom(env: Env, workspaceId: string, conversationId: string, until: number): Promise<void> {
	const scheduled = await conversationRoom(env, conversationId).snooze(workspaceId, conversationId, until);
	if (!scheduled) throw new NotFound(`Conversation ${conversationId} not found.`);
}
