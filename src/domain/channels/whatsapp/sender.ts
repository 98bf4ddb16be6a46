/**
 * Sending one WhatsApp delivery: claim it, build its Cloud API bodies, wait for each one's slot in the
 * number's pace, call Graph, record each body Meta accepted and then the outcome.
 *
 * The claim comes before the call and each accepted body is recorded after it, so a redelivered Queue
 * message (or the sweep's re-send) that finds the delivery `sending` or settled sends nothing again, and a
 * retry after a failure part-way goes on from the next body. The Cloud API takes no idempotency key, so one
 * window stays (docs/whatsapp.md, "Messages going out"): a call Meta accepted whose answer never came back
 * (a timeout) is retried, and the customer may get that body twice; and a consumer that dies between Meta's
 * answer and the record leaves the delivery `sending`, which the sweep records failed (never sent again).
 */
import { and, eq } from 'drizzle-orm';
import { signMailLink } from '../../../auth/mail-link-token';
import type { Database } from '../../../db/client';
import { messages } from '../../../db/schema';
import { type MediaRef, messageBodies, type OutgoingBody, templateBody } from '../../../engines/whatsapp/outgoing';
import { LATE_RETRIES, type PaceDecision, type PaceRule, paceRule, slotMissed } from '../../../engines/whatsapp/pace';
import { NotFound } from '../../../lib/errors';
import { OutboundError } from '../../../lib/guarded-fetch';
import { whatsappPacer } from '../../objects';
import {
	claimDelivery,
	deliveryById,
	recordNotSent,
	recordPart,
	recordSent,
	releaseClaim,
	staleDeliveries,
	touchQueued,
	type WhatsappDeliveryRow,
} from './deliveries';
import { GraphError, graphCall, type OpenNumber, openNumber } from './graph';
import { sendToQueue } from './outbox';
import { outsideWindow, windowEndsAt } from './window';

/** A failure the Queue should retry with backoff: nothing more was sent, the delivery is queued again. */
export class RetryableSend extends Error {
	override readonly name = 'RetryableSend';
	constructor(
		message: string,
		/** Meta's code (130429, 131056…), null for a failed connection. */
		readonly code: number | null,
		readonly throttle: 'number' | 'recipient' | undefined,
	) {
		super(message);
	}
}

/** The numbers a batch opened (their credentials unsealed once), by id. */
export type NumberCache = Map<string, Promise<OpenNumber>>;

/** What became of a delivery handed to the consumer: done (sent, settled, not ours), or to try again later. */
export type SendOutcome = { done: true } | { laterSeconds: number };
const DONE: SendOutcome = { done: true };

/** How Meta's refusal reads on the delivery: `131047 Re-engagement message: <details>`. */
export function metaReason(error: GraphError): string {
	const head = error.code === null ? `HTTP ${error.status}` : String(error.code);
	return `${head} ${error.title}${error.details ? `: ${error.details}` : ''}`;
}

// A file kept in R2 (a visitor's upload, a mail's attachment): `…/v3/files/fil_<32 hex>`, behind the team's token.
const STORED_FILE = /\/v3\/files\/(fil_[0-9a-f]{32})$/;
/** How long the signed link Meta fetches a stored file from works: the retries of a few days. */
const FILE_LINK_TTL_MS = 7 * 86_400_000;

/**
 * Where Meta fetches a file from (it caches each URL 10 minutes): a file kept in R2 through Parley's signed
 * file link (the one large mail attachments use, `/mail/files/<token>`, on the file's own origin), any other
 * https URL as it is.
 */
async function mediaLink(env: Env, workspaceId: string, url: string, now: number): Promise<MediaRef> {
	const stored = STORED_FILE.exec(url)?.[1];
	if (stored === undefined) return { link: url };
	const token = await signMailLink(env, {
		purpose: 'file',
		workspaceId,
		fileId: stored,
		expiresAt: now + FILE_LINK_TTL_MS,
	});
	return { link: `${new URL(url).origin}/mail/files/${token}` };
}

/** The bodies of a delivery, or why none may go. */
async function build(
	env: Env,
	db: Database,
	row: WhatsappDeliveryRow,
	now: number,
): Promise<{ bodies: OutgoingBody[] } | { skip: string }> {
	const to = `+${row.recipient}`;
	if (row.kind !== 'reply') {
		if (!row.template) return { skip: `a ${row.kind} delivery without its template` };
		return { bodies: [templateBody(to, row.template)] };
	}
	if (row.conversationId === null || row.messageSeq === null) return { skip: 'a reply without its message' };
	const refusal = outsideWindow(await windowEndsAt(db, row.numberId, row.recipient), now);
	if (refusal !== null) return { skip: refusal };
	const message = await db
		.select({ body: messages.body, attachments: messages.attachments, interactive: messages.interactive })
		.from(messages)
		.where(
			and(
				eq(messages.conversationId, row.conversationId),
				eq(messages.workspaceId, row.workspaceId),
				eq(messages.seq, row.messageSeq),
			),
		)
		.get();
	if (!message) throw new Error(`message ${row.conversationId}#${row.messageSeq} is not in D1 yet`);
	const links = new Map<string, MediaRef>();
	for (const file of message.attachments) links.set(file.url, await mediaLink(env, row.workspaceId, file.url, now));
	const media = (file: { url: string }): MediaRef => links.get(file.url) ?? { link: file.url };
	const bodies = messageBodies(
		to,
		{ text: message.body, attachments: message.attachments, interactive: message.interactive ?? null },
		media,
	);
	return bodies.length > 0 ? { bodies } : { skip: 'nothing in the message WhatsApp can carry' };
}

/** The WhatsApp id Meta gave the message it accepted. */
function wamidOf(answer: unknown): string {
	const id = (answer as { messages?: Array<{ id?: unknown }> } | null)?.messages?.[0]?.id;
	if (typeof id !== 'string' || id === '') throw new OutboundError('the Cloud API answered without a message id');
	return id;
}

/**
 * A slot in the number's pace, waited for: one woken up for later than LATE_MS (a busy isolate) is given up
 * and another asked for, at most LATE_RETRIES times, so that late senders do not reach Meta in a bunch. The
 * first slot may be one the batch reserved for it already (`reserveSlots`).
 */
async function awaitSlot(
	pacer: ReturnType<typeof whatsappPacer>,
	recipient: string,
	rule: PaceRule,
	reserved?: PaceDecision,
) {
	let slot = reserved ?? (await pacer.paceSend(recipient, rule));
	for (let late = 0; ; late++) {
		if ('retryAt' in slot) return slot;
		const wait = slot.sendAt - Date.now();
		if (wait > 0) await scheduler.wait(wait);
		if (!slotMissed(slot.sendAt, Date.now()) || late >= LATE_RETRIES) return slot;
		// The same message's next slot: the customer's pair rate counted it when its first was reserved.
		slot = await pacer.paceSend(recipient, rule, true);
	}
}

/** The number a delivery goes from, opened once per batch (its credentials unsealed once). */
function openCached(env: Env, db: Database, numbers: NumberCache, row: WhatsappDeliveryRow): Promise<OpenNumber> {
	let opening = numbers.get(row.numberId);
	if (!opening) {
		opening = openNumber(env, db, row.workspaceId, row.numberId);
		numbers.set(row.numberId, opening);
	}
	return opening;
}

/**
 * Reserves the first slot of each of a batch's claimed deliveries (`rows`, in the order they go), one call to
 * each number's pacer instead of one per message: the batch's first message goes as soon as it is claimed.
 * A number that does not open, or whose pacer does not answer, reserves nothing: its deliveries ask for their
 * slots themselves, or find out why they cannot go, when they are sent.
 */
export async function reserveSlots(
	env: Env,
	db: Database,
	rows: readonly WhatsappDeliveryRow[],
	numbers: NumberCache,
): Promise<Map<string, PaceDecision>> {
	const reserved = new Map<string, PaceDecision>();
	const byNumber = new Map<string, WhatsappDeliveryRow[]>();
	for (const row of rows) {
		const some = byNumber.get(row.numberId) ?? [];
		some.push(row);
		byNumber.set(row.numberId, some);
	}
	await Promise.all(
		[...byNumber.values()].map(async (some) => {
			const first = some[0] as WhatsappDeliveryRow;
			try {
				const number = await openCached(env, db, numbers, first);
				if (number.workspaceId !== first.workspaceId) return;
				const slots = await whatsappPacer(env, number.id).paceSends(
					some.map((row) => row.recipient),
					paceRule(number.messagesPerSecond),
				);
				for (const [i, row] of some.entries()) reserved.set(row.id, slots[i] as PaceDecision);
			} catch {
				// Nothing reserved: each delivery asks for its own slot (and meets the same fault, if it lasts).
			}
		}),
	);
	return reserved;
}

/**
 * Claims, builds, paces, sends and records the delivery `id`. Returns `done` when it is settled or not
 * queued (sent, being sent), `laterSeconds` when its next body's slot is further off than a consumer waits
 * (the claim released: the caller puts it back on the Queue, delayed); throws `RetryableSend` for the Queue to
 * retry with backoff.
 */
export async function processDelivery(
	env: Env,
	db: Database,
	id: string,
	now = Date.now(),
	numbers: NumberCache = new Map(),
): Promise<SendOutcome> {
	const row = await claimDelivery(db, id, now);
	return row === null ? DONE : sendClaimed(env, db, row, now, numbers);
}

/** `processDelivery` for a delivery already claimed (a batch claims its deliveries together), maybe with its first slot. */
export async function sendClaimed(
	env: Env,
	db: Database,
	row: WhatsappDeliveryRow,
	now: number,
	numbers: NumberCache,
	reserved?: PaceDecision,
): Promise<SendOutcome> {
	let number: OpenNumber;
	let built: Awaited<ReturnType<typeof build>>;
	try {
		number = await openCached(env, db, numbers, row);
		if (number.workspaceId !== row.workspaceId) throw new NotFound(`WhatsApp number ${row.numberId} not found.`);
		built = await build(env, db, row, now);
	} catch (error) {
		if (error instanceof NotFound) {
			await recordNotSent(db, row, 'skipped', 'the WhatsApp number is no longer connected');
			return DONE;
		}
		// Nothing was sent: the delivery goes back to the queue for the Queue's retry.
		await releaseClaim(db, row, `building the message failed: ${String(error)}`);
		throw error;
	}
	if ('skip' in built) {
		await recordNotSent(db, row, 'skipped', built.skip);
		return DONE;
	}
	const pacer = whatsappPacer(env, number.id);
	const rule = paceRule(number.messagesPerSecond);
	for (let part = row.partsSent; part < built.bodies.length; part++) {
		const slot = await awaitSlot(pacer, row.recipient, rule, part === row.partsSent ? reserved : undefined);
		if ('retryAt' in slot) {
			await releaseClaim(db, row, null);
			return { laterSeconds: Math.max(1, Math.ceil((slot.retryAt - Date.now()) / 1000)) };
		}
		let wamid: string;
		try {
			wamid = wamidOf(
				await graphCall(env, number, {
					method: 'POST',
					path: `/${number.phoneNumberId}/messages`,
					body: built.bodies[part],
				}),
			);
		} catch (error) {
			if (error instanceof GraphError) {
				const reason = metaReason(error);
				// A code Meta calls ambiguous (1) is tried a few times only.
				if (!error.retryable || (error.maxRetries !== undefined && row.attempts > error.maxRetries)) {
					await recordNotSent(db, row, 'failed', reason, error.code);
					return DONE;
				}
				await releaseClaim(db, row, reason, error.code);
				throw new RetryableSend(reason, error.code, error.throttle);
			}
			if (error instanceof OutboundError && !error.transient) {
				await recordNotSent(db, row, 'failed', error.message);
				return DONE;
			}
			await releaseClaim(db, row, String(error instanceof Error ? error.message : error));
			throw new RetryableSend(String(error), null, undefined);
		}
		if (part === built.bodies.length - 1) await recordSent(db, row, wamid, built.bodies.length);
		else await recordPart(db, row);
	}
	return DONE;
}

/** The Queue's backoff before retrying a delivery, in seconds: Meta's 4^x for the pair rate, 2^x else, capped. */
export function retryDelaySeconds(attempts: number, error: unknown): number {
	const base = error instanceof RetryableSend && error.throttle === 'recipient' ? 4 : 2;
	return Math.min(300, base ** Math.max(1, attempts));
}

/** The dead-letter queue's work: a delivery whose every try failed is recorded failed (unless it went out). */
export async function giveUpDelivery(db: Database, id: string, now = Date.now()): Promise<void> {
	const row = await deliveryById(db, id);
	if (row?.status !== 'queued') return;
	// Held as `sending` for the record: a queued one is claimed first, so nothing else takes it meanwhile.
	const held = await claimDelivery(db, id, now);
	if (held === null) return;
	const reason = `gave up after ${held.attempts - 1} tries${row.error ? `; last: ${row.error}` : ''}`;
	await recordNotSent(db, held, 'failed', reason, row.errorCode, now);
}

/** How long a delivery may stay queued before the sweep sends its Queue message again (a lost send). */
export const QUEUED_GRACE_MS = 10 * 60_000;
/** How long a delivery may stay `sending` before the sweep calls it interrupted. */
export const SENDING_GRACE_MS = 15 * 60_000;
const SWEEP_BATCH = 100;

/**
 * The cron's sweep, as mail's: a delivery still queued after a while had its Queue message lost (sent again;
 * the claim makes a duplicate harmless); one still sending after a while lost its consumer, maybe after Meta
 * took the message, so it is recorded failed as interrupted rather than sent twice.
 */
export async function sweepWhatsapp(env: Env, db: Database, now = Date.now()): Promise<void> {
	const [queued, sending] = await Promise.all([
		staleDeliveries(db, 'queued', now - QUEUED_GRACE_MS, SWEEP_BATCH),
		staleDeliveries(db, 'sending', now - SENDING_GRACE_MS, SWEEP_BATCH),
	]);
	await touchQueued(
		db,
		queued.map((row) => row.id),
		now,
	);
	for (const row of queued) await sendToQueue(env, row);
	for (const row of sending) {
		await recordNotSent(
			db,
			row,
			'failed',
			'interrupted while sending: Meta may have taken it; not sent again, so as never to send twice',
			null,
			now,
		);
	}
}
