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
import { Invalid, NotFound } from '../../../lib/errors';
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

/** A WhatsApp conversation's window as the server keeps it: what the console shows above the composer. */
export interface ConversationWindow {
	/** The number the conversation is on; null when the workspace has none connected (no window is kept). */
	numberId: string | null;
	/** Whether Parley refuses a team member's free-form message outside the window (a number is connected). */
	enforced: boolean;
	/** The customer's last message to the number, by Meta's timestamp; null when they never wrote to it. */
	lastCustomerMessageAt: string | null;
	/** When the window closes; null when it is not open (never opened) or not kept. */
	endsAt: string | null;
	open: boolean;
}

/**
 * The 24-hour window of a WhatsApp conversation, counted as the room counts it (from Meta's timestamp of the
 * customer's last message, not from when Parley received it), so the console's notice and the room's 409
 * agree. NotFound outside the workspace; Invalid for a conversation on another channel.
 */
export async function conversationWindow(
	db: Database,
	workspaceId: string,
	conversationId: string,
	now = Date.now(),
): Promise<ConversationWindow> {
	const { found, whatsapp, connected, line } = await lineFacts(db, workspaceId, conversationId);
	if (!found) throw new NotFound(`Conversation ${conversationId} not found.`);
	// The conversation is the path's (`/conversations/{id}/window`): named `param.id`, as the router names it.
	if (!whatsapp) throw new Invalid('not a WhatsApp conversation', { field: ['id'], source: 'param' });
	if (!connected) return { numberId: null, enforced: false, lastCustomerMessageAt: null, endsAt: null, open: true };
	const endsAt = line === null ? null : await windowEndsAt(db, line.numberId, line.waId);
	const open = outsideWindow(endsAt, now) === null;
	return {
		numberId: line?.numberId ?? null,
		enforced: true,
		lastCustomerMessageAt: endsAt === null ? null : iso(endsAt - SERVICE_WINDOW_MS),
		endsAt: endsAt === null ? null : iso(endsAt),
		open,
	};
}
