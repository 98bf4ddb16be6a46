/**
 * The inbound path: every mail Email Routing hands the Worker's `email()` handler, whatever it is.
 *
 * Nothing is lost: the raw message goes to R2 and its `inbound_mails` row is written before anything else is
 * tried, and every later step ends in a recorded outcome on that row (`status`, and `failure` saying why it
 * was not posted or what was left out). Then:
 * 1. the workspace: a verified reply address names its conversation (and so its workspace); else an inbound
 *    address; else the mail is rejected (`setReject`, so the sender's server tells the sender);
 * 2. parsing (postal-mime) and the engines: the kind of mail, its authentication, its text;
 * 3. machine mail (auto-replies, bounces, bulk) is stored and marked, never posted, so no bot, rule or
 *    automatic answer ever fires on it; a bounce marks the failed contact and delivery (machine-effects.ts);
 * 4. a person's mail is posted (posting.ts).
 * An unexpected error is recorded as `failed` and not thrown: the raw message is kept for an admin, and the
 * sender is not bounced for Parley's own fault.
 */
import { eq } from 'drizzle-orm';
import { parseReplyLocalPart, verifyReplyAddress } from '../../../auth/mail-reply-token';
import type { Database } from '../../../db/client';
import { conversations, inboundMails } from '../../../db/schema';
import { directoryDb, firstFound, shardsToAsk } from '../../../db/shards';
import { normalAddress, splitAddress } from '../../../engines/mail/headers';
import { newId } from '../../../lib/ids';
import type { InboundMailStatus } from '../../../model/email';
import { findInboundAddress, workspaceOrigin } from './addresses';
import { applyBounce } from './machine-effects';
import { MalformedMail, parseMail } from './parsed-mail';
import { postMail, threadedConversation } from './posting';

/** Email Routing's limit: it refuses larger mail, so a larger one (a local test's) is kept but not parsed. */
export const MAX_MAIL_BYTES = 25 * 1024 * 1024;

/** What the `email()` handler is given: the platform's ForwardableEmailMessage, the part this path uses. */
export type InboundEnvelope = Pick<ForwardableEmailMessage, 'from' | 'to' | 'raw' | 'rawSize' | 'setReject'>;

export interface InboundOutcome {
	id: string;
	status: InboundMailStatus;
	failure: string | null;
}

type InboundRow = typeof inboundMails.$inferInsert;
type Patch = Partial<Omit<InboundRow, 'id' | 'rawKey' | 'rawSize' | 'receivedAt'>>;

/** The R2 key of a received mail's raw message. */
export const rawMailKey = (id: string) => `mail/in/${id}.eml`;

/** Which workspace (and conversation) the recipient names, and the shard holding it (`home`); or why none. */
type Destination =
	| { kind: 'reply'; workspaceId: string; conversationId: string; home: Database }
	| { kind: 'address'; workspaceId: string; origin: string | null; home: Database }
	| { kind: 'none'; reason: string };

/**
 * The recipient's workspace. A mail names none until its address is looked up, so each shard is asked (one,
 * unless the deployment has shards), side by side: the conversation a reply address names, else the inbound
 * address.
 */
async function destination(env: Env, shards: Database[], recipient: string): Promise<Destination> {
	const local = splitAddress(recipient)?.local ?? '';
	const reply = parseReplyLocalPart(local);
	if (reply) {
		const found = await firstFound(shards, (shard) =>
			shard
				.select({ workspaceId: conversations.workspaceId })
				.from(conversations)
				.where(eq(conversations.id, reply.conversationId))
				.get(),
		);
		if (found && (await verifyReplyAddress(env, found.row.workspaceId, reply))) {
			const { workspaceId } = found.row;
			return { kind: 'reply', workspaceId, conversationId: reply.conversationId, home: found.shard };
		}
		return { kind: 'none', reason: 'This reply address is not valid (unknown or forged): the mail was not delivered.' };
	}
	const found = await firstFound(shards, (shard) => findInboundAddress(shard, recipient));
	if (found)
		return { kind: 'address', workspaceId: found.row.workspaceId, origin: found.row.origin, home: found.shard };
	return { kind: 'none', reason: `No Parley inbox receives mail at ${recipient}.` };
}

/** Receives one mail (see the module's comment); returns its record's outcome. */
export async function receiveMail(env: Env, message: InboundEnvelope, now = Date.now()): Promise<InboundOutcome> {
	// A mail names no workspace until its address is looked up: it is kept in the directory's database first,
	// and its record moves to its workspace's shard once that is known (`handle`).
	let db = directoryDb(env);
	const raw = await new Response(message.raw).arrayBuffer();
	const id = newId('inm', now);
	const rawKey = rawMailKey(id);
	await env.FILES.put(rawKey, raw, { httpMetadata: { contentType: 'message/rfc822' } });
	await db.insert(inboundMails).values({
		id,
		workspaceId: null,
		rawKey,
		rawSize: raw.byteLength,
		envelopeFrom: message.from,
		envelopeTo: message.to,
		kind: 'message',
		status: 'received',
		receivedAt: now,
	});
	const record = async (patch: Patch) => {
		await db.update(inboundMails).set(patch).where(eq(inboundMails.id, id));
	};
	/** Moves the record to the shard holding its workspace (where the API lists it), when that is another. */
	const moveTo = async (home: Database) => {
		if (home.$client === db.$client) return;
		const row = await db.select().from(inboundMails).where(eq(inboundMails.id, id)).get();
		if (row) await home.insert(inboundMails).values(row).onConflictDoNothing();
		await db.delete(inboundMails).where(eq(inboundMails.id, id));
		db = home;
	};
	let outcome: Patch & { status: InboundMailStatus };
	try {
		outcome = await handle(env, shardsToAsk(env, db), message, raw, { record, moveTo }, now);
	} catch (error) {
		console.error('inbound mail failed', id, error);
		outcome = {
			status: 'failed',
			failure: `Parley could not process it: ${String((error as Error).message ?? error)}`,
		};
	}
	await record(outcome);
	return { id, status: outcome.status, failure: outcome.failure ?? null };
}

async function handle(
	env: Env,
	shards: Database[],
	message: InboundEnvelope,
	raw: ArrayBuffer,
	{ record, moveTo }: { record: (patch: Patch) => Promise<void>; moveTo: (home: Database) => Promise<void> },
	now: number,
): Promise<Patch & { status: InboundMailStatus }> {
	const target = await destination(env, shards, normalAddress(message.to));
	if (target.kind === 'none') {
		message.setReject(target.reason);
		return { status: 'rejected', failure: target.reason };
	}
	const { workspaceId, home: db } = target;
	await moveTo(db);
	await record({ workspaceId, conversationId: target.kind === 'reply' ? target.conversationId : null });
	if (raw.byteLength > MAX_MAIL_BYTES) {
		return {
			status: 'failed',
			failure: `Larger than ${MAX_MAIL_BYTES / 1024 / 1024} MiB: kept as received, not read.`,
		};
	}
	let parsed: Awaited<ReturnType<typeof parseMail>>;
	try {
		parsed = await parseMail(raw, message.from);
	} catch (error) {
		if (error instanceof MalformedMail) return { status: 'failed', failure: error.message };
		throw error;
	}
	const notes: string[] = [];
	if (parsed.headerInjection) notes.push('a header carried a line break, which was replaced by a space');
	if (parsed.undecodable) notes.push('some characters could not be decoded in the declared charset');
	await record({
		headerMessageId: parsed.messageId,
		subject: parsed.subject || null,
		kind: parsed.machine.kind,
		authentication: parsed.authentication,
		possiblyForged: parsed.possiblyForged,
	});
	const replyConversation = target.kind === 'reply' ? target.conversationId : null;
	if (parsed.machine.kind !== 'message') {
		// Threaded for display beside the conversation's messages, never posted into it.
		const bounced = parsed.machine.bouncedMessageId;
		const threaded =
			replyConversation ??
			(bounced
				? await threadedConversation(db, workspaceId, [bounced], 'anyone')
				: await threadedConversation(db, workspaceId, parsed.threadIds, parsed.sender ?? ''));
		const effects = parsed.machine.kind === 'bounce' ? await applyBounce(db, workspaceId, parsed.machine, now) : null;
		const changed = effects
			? `; ${effects.contactsMarked} contact address(es) marked failing, ${effects.deliveriesFailed} delivery(ies) marked failed`
			: '';
		return {
			status: 'ignored',
			conversationId: threaded,
			failure: `Not posted: ${parsed.machine.kind.replace('_', '-')} (${parsed.machine.reason})${changed}.`,
		};
	}
	const origin = (target.kind === 'address' ? target.origin : null) ?? (await workspaceOrigin(db, workspaceId));
	const posted = await postMail(env, db, workspaceId, parsed, raw, replyConversation, origin ?? widgetOrigin(env), now);
	if (!posted.created) notes.push('already received: the same mail was posted before, and was not posted again');
	return {
		status: posted.created ? 'posted' : 'ignored',
		conversationId: posted.conversationId,
		parleyMessageId: posted.messageId,
		failure: [...notes, ...posted.notes].join('; ') || null,
	};
}

/** WIDGET_URL, when the deployment sets it, is this Worker's public origin too. */
function widgetOrigin(env: Env): string | null {
	try {
		return env.WIDGET_URL ? new URL(env.WIDGET_URL).origin : null;
	} catch {
		return null;
	}
}
