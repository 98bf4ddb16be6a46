/**
 * A mail delivery's states and their writes. The claim (queued -> sending) is one conditional UPDATE, so of
 * two consumers handed the same delivery (a redelivered Queue message, the sweep's re-send) exactly one
 * proceeds; the other finds it sending or sent and mails nothing. Every settling write is conditional on
 * `sending` too and carries its event in the same batch (`commit`), so an outcome is recorded and announced
 * once.
 */
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Database, Statement } from '../../../db/client';
import { mailDeliveries, mailThreads } from '../../../db/schema';
import { commit, IF_CHANGED, release } from '../../../events/commit';
import { SYSTEM } from '../../../model/actor';
import type { MailDeliveryStatus } from '../../../model/email';
import { type DomainEvent, newEvent } from '../../../model/events';
import { senderErrorStatement } from './settings';

export type DeliveryRow = typeof mailDeliveries.$inferSelect;

/** Claims a queued delivery for this consumer (attempts + 1); null when it is not queued (or not there). */
export async function claimDelivery(db: Database, id: string, now = Date.now()): Promise<DeliveryRow | null> {
	const [row] = await db
		.update(mailDeliveries)
		.set({ status: 'sending', attempts: sql`${mailDeliveries.attempts} + 1`, updatedAt: now })
		.where(and(eq(mailDeliveries.id, id), eq(mailDeliveries.status, 'queued')))
		.returning();
	return row ?? null;
}

/**
 * Claims the conversation's other queued replies along with `first`: a burst of team messages in an e-mail
 * conversation, each enqueued as it was written, goes out as one mail. Returns them, oldest first.
 */
export async function claimReplyBurst(db: Database, first: DeliveryRow, now = Date.now()): Promise<DeliveryRow[]> {
	if (first.kind !== 'reply' || first.conversationId === null) return [];
	const rows = await db
		.update(mailDeliveries)
		.set({ status: 'sending', attempts: sql`${mailDeliveries.attempts} + 1`, updatedAt: now })
		.where(
			and(
				eq(mailDeliveries.workspaceId, first.workspaceId),
				eq(mailDeliveries.conversationId, first.conversationId),
				eq(mailDeliveries.kind, 'reply'),
				eq(mailDeliveries.recipient, first.recipient),
				eq(mailDeliveries.status, 'queued'),
			),
		)
		.returning();
	return rows.sort((a, b) => (a.firstSeq ?? 0) - (b.firstSeq ?? 0));
}

function summary(row: DeliveryRow) {
	return {
		id: row.id,
		kind: row.kind,
		conversationId: row.conversationId,
		contactId: row.contactId,
		firstSeq: row.firstSeq,
		lastSeq: row.lastSeq,
		attempts: row.attempts,
	};
}

/** `status`, `error` and more on a delivery this consumer holds (still `sending`), as one statement. */
function settle(db: Database, row: DeliveryRow, values: Partial<DeliveryRow> & { status: MailDeliveryStatus }) {
	return db
		.update(mailDeliveries)
		.set(values)
		.where(and(eq(mailDeliveries.id, row.id), eq(mailDeliveries.status, 'sending')));
}

/** Commits each row's change with its event (written only if the row was still sending), then releases them. */
async function settleEach(
	env: Env,
	db: Database,
	rows: DeliveryRow[],
	change: (row: DeliveryRow, first: boolean) => { before?: Statement[]; update: Statement; event?: DomainEvent },
): Promise<void> {
	const released: DomainEvent[] = [];
	for (const [i, row] of rows.entries()) {
		const { before = [], update, event } = change(row, i === 0);
		const committed = await commit(db, {
			// The update last: the conditional event row right after it is written only if it changed the row.
			statements: [...before, update],
			events: event ? [{ event, onlyIf: IF_CHANGED }] : [],
		});
		released.push(...committed.events);
	}
	await release(env, released);
}

/**
 * Records the mail as sent: the provider's id on every delivery it carried, its Message-ID in the
 * conversation's mail threads (so the customer's reply threads back), one `mail.sent` event per delivery.
 */
export async function recordSent(
	env: Env,
	db: Database,
	rows: DeliveryRow[],
	providerMessageId: string,
	now = Date.now(),
): Promise<void> {
	const headerMessageId = providerMessageId.replace(/^<|>$/g, '');
	await settleEach(env, db, rows, (row, first) => {
		const before: Statement[] = [];
		if (first && row.conversationId !== null) {
			before.push(
				db
					.insert(mailThreads)
					.values({
						workspaceId: row.workspaceId,
						messageId: headerMessageId,
						conversationId: row.conversationId,
						createdAt: now,
					})
					.onConflictDoNothing(),
				// The provider took a mail from this sender: whatever it refused before is behind us.
				senderErrorStatement(db, row.workspaceId, null),
			);
		}
		return {
			before,
			update: settle(db, row, {
				status: 'sent',
				providerMessageId,
				headerMessageId,
				error: null,
				sentAt: now,
				updatedAt: now,
			}),
			event: newEvent(
				'mail.sent',
				row.workspaceId,
				SYSTEM,
				{ delivery: summary(row), messageId: headerMessageId },
				now,
			),
		};
	});
}

/**
 * Records a mail that will not go: `failed` (the provider refused it; `mail.failed` is emitted) or `skipped`
 * (Parley chose not to send it: no sender, the contact stopped continuations…; no event). `senderError`
 * also marks the workspace's sender as refused, for its settings' `sending` status.
 */
export async function recordNotSent(
	env: Env,
	db: Database,
	rows: DeliveryRow[],
	status: 'failed' | 'skipped',
	reason: string,
	options: { senderError?: boolean; now?: number } = {},
): Promise<void> {
	const now = options.now ?? Date.now();
	const error = reason.slice(0, 500);
	await settleEach(env, db, rows, (row, first) => ({
		before: first && options.senderError ? [senderErrorStatement(db, row.workspaceId, error)] : [],
		update: settle(db, row, { status, error, updatedAt: now }),
		event:
			status === 'failed'
				? newEvent('mail.failed', row.workspaceId, SYSTEM, { delivery: summary(row), reason: error }, now)
				: undefined,
	}));
}

/**
 * Puts claimed deliveries back in the queue after a transient failure (nothing was sent: the provider said so,
 * or it was never called), with the reason, for the Queue's retry to claim them again.
 */
export async function releaseClaim(db: Database, rows: DeliveryRow[], reason: string, now = Date.now()) {
	if (rows.length === 0) return;
	await db
		.update(mailDeliveries)
		.set({ status: 'queued', error: reason.slice(0, 500), updatedAt: now })
		.where(
			and(
				inArray(
					mailDeliveries.id,
					rows.map((r) => r.id),
				),
				eq(mailDeliveries.status, 'sending'),
			),
		);
}

/** Marks queued deliveries as just looked at, so the sweep re-sends each lost Queue message once per grace period. */
export async function touchQueued(db: Database, ids: string[], now = Date.now()) {
	if (ids.length === 0) return;
	await db
		.update(mailDeliveries)
		.set({ updatedAt: now })
		.where(and(inArray(mailDeliveries.id, ids), eq(mailDeliveries.status, 'queued')));
}

/** A delivery by id, whatever its state (the dead-letter consumer's and the tests' read). */
export async function deliveryById(db: Database, id: string): Promise<DeliveryRow | undefined> {
	return db.select().from(mailDeliveries).where(eq(mailDeliveries.id, id)).get();
}

/** Deliveries in `status` whose last change is older than `before`: what the sweep looks at. */
export async function staleDeliveries(db: Database, status: MailDeliveryStatus, before: number, limit: number) {
	return db
		.select()
		.from(mailDeliveries)
		.where(and(eq(mailDeliveries.status, status), lt(mailDeliveries.updatedAt, before)))
		.orderBy(mailDeliveries.updatedAt)
		.limit(limit);
}
