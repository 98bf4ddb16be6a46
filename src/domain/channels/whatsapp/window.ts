/**
 * The 24-hour customer-service window: a free-form message may reach a customer only until 24 hours after
 * their last message to the number (Meta refuses it after, with 131047); a template may go at any time.
 * Parley checks it itself before it sends (the sender) and before the conversation's room stores a message a team
 * member writes into a WhatsApp conversation (the API, the console), so nothing is stored that could not go
 * out. A bot's, a rule's or a scenario's message is stored and its delivery recorded `skipped`.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { whatsappWindows } from '../../../db/schema';
import { iso } from '../../../lib/ids';
import { SERVICE_WINDOW_MS } from '../../../model/whatsapp';
import { lineFacts } from './replies';

/** When the window of a customer with a number closes (ms), or null when they never wrote to it. */
export async function windowEndsAt(db: Database, numberId: string, waId: string): Promise<number | null> {
	const row = await db
		.select({ lastInboundAt: whatsappWindows.lastInboundAt })
		.from(whatsappWindows)
		.where(and(eq(whatsappWindows.numberId, numberId), eq(whatsappWindows.waId, waId)))
		.get();
	return row ? row.lastInboundAt + SERVICE_WINDOW_MS : null;
}

/** Why a free-form message cannot go now, or null when the window is open. */
export function outsideWindow(endsAt: number | null, now: number): string | null {
	if (endsAt !== null && now < endsAt) return null;
	return endsAt === null
		? 'Outside the 24-hour customer-service window: the customer has not written to this number; only an approved template can be sent.'
		: `Outside the 24-hour customer-service window: it closed at ${iso(endsAt)}; only an approved template can be sent.`;
}

/**
 * Why a free-form message cannot go into a conversation now (its WhatsApp window is closed), or null when it
 * can: asked by the conversation's room, which knows its channel, only for a team member's message into a
 * WhatsApp conversation, so no other message pays a read.
 */
export async function windowRefusal(
	db: Database,
	workspaceId: string,
	conversationId: string,
	now = Date.now(),
): Promise<string | null> {
	const { line, connected } = await lineFacts(db, workspaceId, conversationId);
	if (line !== null) return outsideWindow(await windowEndsAt(db, line.numberId, line.waId), now);
	// A workspace with no number connected: `whatsapp` is only the name an integration gave its conversations
	// (it carries them itself, through the API), and Parley sends nothing, so there is no window to keep.
	return connected ? outsideWindow(null, now) : null;
}
