/**
 * Sending one delivery: claim it, build its mail, hand it to the `send_email` binding, record the outcome.
 *
 * The claim comes before the send and the record after it, so a redelivered Queue message (or the sweep's
 * re-send) that finds the delivery `sending` or `sent` mails nothing again. The provider takes no
 * idempotency key, so one window stays: a consumer that dies after the provider took the mail and before
 * `sent` is recorded leaves the delivery `sending`. It is never sent again from there (the sweep marks it
 * failed as interrupted after a while): a lost record can cost a mail shown as failed that did go out, never
 * a second copy.
 */
import type { Database } from '../../../db/client';
import { UnsafeAddress } from '../../../engines/mail/compose';
import { type BuiltMail, buildConversationMail } from './build';
import { buildCampaignMail } from './build-campaign';
import { type BuiltNotification, buildNotificationMail } from './build-notification';
import {
	claimDelivery,
	claimReplyBurst,
	type DeliveryRow,
	deliveryById,
	recordNotSent,
	recordSent,
	releaseClaim,
	staleDeliveries,
	touchQueued,
} from './deliveries';
import { enqueueMail } from './outbox';

/** How many times recording a sent mail is tried before the delivery is left `sending` (and never re-sent). */
const RECORD_TRIES = 3;

/** A failure the Queue should retry: nothing was sent, the delivery is queued again. */
export class TransientMailError extends Error {}

/** The provider's codes worth a retry (its limits, its own trouble); every other refusal is final. */
const TRANSIENT_CODES = new Set(['E_RATE_LIMIT_EXCEEDED', 'E_DAILY_LIMIT_EXCEEDED', 'E_INTERNAL_SERVER_ERROR']);
/** The codes that say the sender itself is refused: the workspace's settings show it. */
const SENDER_CODES = new Set(['E_SENDER_NOT_VERIFIED', 'E_SENDER_DOMAIN_NOT_AVAILABLE']);

/** The provider's error code and message (its errors carry a `code`; the local simulation's do not). */
export function providerError(error: unknown): { code: string | null; reason: string } {
	const code =
		typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
			? error.code
			: null;
	const message = error instanceof Error ? error.message : String(error);
	return { code, reason: code ? `${code}: ${message}` : message };
}

/**
 * Whether a refusal is final. The codes the provider documents decide; an error without a code is final
 * when the binding refused the message outright ("email from … not allowed", its sender or recipient
 * restrictions), and transient otherwise (a network failure on the way to the provider).
 */
export function isPermanent(code: string | null, reason: string): boolean {
	if (code !== null) return !TRANSIENT_CODES.has(code);
	return /not allowed|invalid|could not parse/i.test(reason);
}

/** Whether the refusal is of the sender itself (its domain not onboarded, or not allowed by the binding). */
function isSenderRefused(code: string | null, reason: string): boolean {
	return code === null ? /^email from \S+ not allowed/.test(reason) : SENDER_CODES.has(code);
}

/**
 * Claims, builds, sends and records the delivery `id`. Returns quietly when the delivery is not queued (sent,
 * being sent, settled) or was skipped; throws `TransientMailError` for the Queue to retry.
 */
export async function processDelivery(env: Env, db: Database, id: string, now = Date.now()): Promise<void> {
	const claimed = await claimDelivery(db, id, now);
	if (claimed === null) return;
	const rows: [DeliveryRow, ...DeliveryRow[]] = [claimed, ...(await claimReplyBurst(db, claimed, now))];
	let built: BuiltMail | BuiltNotification;
	try {
		built =
			claimed.kind === 'campaign'
				? await buildCampaignMail(env, db, claimed, now)
				: claimed.kind === 'notification'
					? await buildNotificationMail(db, claimed)
					: claimed.conversationId !== null && (claimed.kind === 'continuation' || claimed.kind === 'reply')
						? await buildConversationMail(env, db, rows, now)
						: { skip: `no mail is built for a ${claimed.kind} delivery yet` };
	} catch (error) {
		if (error instanceof UnsafeAddress) {
			await recordNotSent(env, db, rows, 'failed', error.message, { now });
			return;
		}
		// Nothing was handed to the provider: the delivery goes back to the queue for the Queue's retry.
		await releaseClaim(db, rows, `building the mail failed: ${String(error)}`, now);
		throw error;
	}
	if ('skip' in built) {
		await recordNotSent(env, db, rows, 'skipped', built.skip, { now });
		return;
	}
	let messageId: string;
	try {
		({ messageId } = await env.EMAIL.send(built.mail));
	} catch (error) {
		const { code, reason } = providerError(error);
		if (isPermanent(code, reason)) {
			await recordNotSent(env, db, rows, 'failed', reason, {
				senderError: isSenderRefused(code, reason),
				now,
			});
			return;
		}
		await releaseClaim(db, rows, reason, now);
		throw new TransientMailError(reason);
	}
	// The one window left is here, between the provider taking the mail and D1 recording it: a failing write is
	// tried again at once (each row's record is conditional, so a repeat changes nothing already recorded).
	for (let tries = 1; ; tries++) {
		try {
			await recordSent(env, db, rows, messageId, Date.now());
			return;
		} catch (error) {
			if (tries >= RECORD_TRIES) throw error;
		}
	}
}

/** The dead-letter queue's work: a delivery whose every try failed is recorded failed (unless it went out). */
export async function giveUpDelivery(env: Env, db: Database, id: string, now = Date.now()): Promise<void> {
	const row = await deliveryById(db, id);
	if (!row || row.status === 'sent' || row.status === 'failed' || row.status === 'skipped') return;
	// Held as `sending` for the record: a queued one is claimed first, so nothing else takes it meanwhile.
	const held = row.status === 'queued' ? await claimDelivery(db, id, now) : row;
	if (held === null) return;
	const reason = `gave up after ${held.attempts} tries${row.error ? `; last: ${row.error}` : ''}`;
	await recordNotSent(env, db, [held], 'failed', reason, { now });
}

/** How long a delivery may stay queued before the sweep sends its Queue message again (a lost send). */
export const QUEUED_GRACE_MS = 10 * 60_000;
/** How long a delivery may stay `sending` before the sweep calls it interrupted. */
export const SENDING_GRACE_MS = 15 * 60_000;
const SWEEP_BATCH = 100;

/**
 * The cron's sweep: a delivery still queued after a while had its Queue message lost (enqueueMail sends it
 * again; the claim makes a duplicate harmless); one still sending after a while lost its consumer, maybe
 * after the provider took the mail, so it is recorded failed as interrupted rather than sent twice.
 */
export async function sweepMail(env: Env, db: Database, now = Date.now()): Promise<void> {
	const [queued, sending] = await Promise.all([
		staleDeliveries(db, 'queued', now - QUEUED_GRACE_MS, SWEEP_BATCH),
		staleDeliveries(db, 'sending', now - SENDING_GRACE_MS, SWEEP_BATCH),
	]);
	await touchQueued(
		db,
		queued.map((row) => row.id),
		now,
	);
	for (const row of queued) {
		await enqueueMail(env, db, {
			workspaceId: row.workspaceId,
			kind: row.kind,
			dedupeKey: row.dedupeKey,
			recipient: row.recipient,
		});
	}
	if (sending.length > 0) {
		await recordNotSent(
			env,
			db,
			sending,
			'failed',
			'interrupted while sending: the provider may have taken it; not sent again, so as never to mail twice',
			{ now },
		);
	}
}
