/**
 * The widget conversation continues by e-mail: what a conversation's room needs to know, when its
 * continuation timer fires, to mail the team's messages the visitor has not seen (the workspace's setting, the
 * contact's address and whether it may be mailed), and the one delivery it then enqueues. When to mail is the
 * room's (durable-objects/room-mail.ts); building and sending the mail is the mail Queue consumer's.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { contacts, conversations, emailSettings } from '../../../db/schema';
import { enqueueMail } from './outbox';

/** How long a team message stays unseen before it is mailed, for a workspace with no `email_settings` row. */
export const DEFAULT_CONTINUATION_DELAY_SECONDS = 120;

/** The only channel whose conversations continue by e-mail: the visitor left the page, not the mailbox. */
export const CONTINUED_CHANNEL = 'widget';

/** The conversation's facts a room's continuation timer depends on, as the room reads them from D1. */
export interface ContinuationFacts {
	channel: string;
	/** `email_settings.continuation_delay_seconds`; null: the workspace has no settings row. */
	delaySeconds: number | null;
	/** `email_settings.continuation_enabled`: true without a settings row. */
	enabled: boolean;
}

/** Why a conversation's unseen messages are not mailed now; null when they are. */
export type ContinuationSkip = 'off' | 'no_address' | 'address_failing' | 'opted_out';

/** What a room learns when its continuation timer fires. */
export interface ContinuationTarget {
	/** Whether the conversation is on the widget (others never continue by e-mail). */
	widget: boolean;
	/** The workspace's delay (ms). */
	delayMs: number;
	contactId: string;
	/** The address to mail; null when nothing may be mailed (see `skip`). */
	recipient: string | null;
	skip: ContinuationSkip | null;
}

/**
 * The contact's address, and whether continuations may go to it, in one D1 read: the workspace's
 * `continuation_enabled` (default on), the contact's e-mail (a verified one, else the one the visitor typed
 * in the pre-chat or offline form or `identify`, kept as claimed), and the address's and the contact's marks
 * (`email_failing_at` after a bounce, `continuation_opt_out_at` from the stop link). Null when the
 * conversation is not the workspace's.
 */
export async function continuationTarget(
	db: Database,
	workspaceId: string,
	conversationId: string,
): Promise<ContinuationTarget | null> {
	const row = await db
		.select({
			channel: conversations.channel,
			contactId: conversations.contactId,
			enabled: sql<number | null>`${emailSettings.continuationEnabled}`,
			delaySeconds: emailSettings.continuationDelaySeconds,
			email: sql<string | null>`COALESCE(${contacts.email}, ${contacts.claimedEmail})`,
			failingAt: contacts.emailFailingAt,
			optedOutAt: contacts.continuationOptOutAt,
		})
		.from(conversations)
		.leftJoin(contacts, and(eq(contacts.id, conversations.contactId), eq(contacts.workspaceId, workspaceId)))
		.leftJoin(emailSettings, eq(emailSettings.workspaceId, workspaceId))
		.where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
		.get();
	if (!row) return null;
	const skip: ContinuationSkip | null =
		row.enabled === 0
			? 'off'
			: row.email === null
				? 'no_address'
				: row.failingAt !== null
					? 'address_failing'
					: row.optedOutAt !== null
						? 'opted_out'
						: null;
	return {
		widget: row.channel === CONTINUED_CHANNEL,
		delayMs: continuationDelayMs(row.delaySeconds),
		contactId: row.contactId,
		recipient: skip === null ? row.email : null,
		skip,
	};
}

/** A workspace's delay in ms from its stored seconds (null: no settings row, the default). */
export function continuationDelayMs(seconds: number | null | undefined): number {
	return Math.max(0, seconds ?? DEFAULT_CONTINUATION_DELAY_SECONDS) * 1000;
}

/**
 * Enqueues the one continuation mail of the conversation's messages `firstSeq` to `lastSeq` (the team's,
 * not private: the sender skips the rest of the range). Its dedupe key names the last message, so the same
 * unseen messages are never enqueued twice, whoever retries.
 */
export function enqueueContinuation(
	env: Pick<Env, 'MAIL_OUT'>,
	db: Database,
	mail: { workspaceId: string; conversationId: string; contactId: string; recipient: string },
	range: { firstSeq: number; lastSeq: number },
): Promise<{ id: string; created: boolean }> {
	return enqueueMail(env, db, {
		...mail,
		kind: 'continuation',
		dedupeKey: `continuation:${mail.conversationId}:${range.lastSeq}`,
		...range,
	});
}
