/**
 * A customer's WhatsApp message becoming a Parley message, once per WhatsApp id (`wamid`): recorded in
 * `whatsapp_inbound` before any work (as `failed`, "not finished"), then posted as the contact through the one
 * door (`startConversation`, `postMessage`, the wamid as client message id and start key, so a retry finds
 * what the first try stored), then recorded `posted`. A redelivery of a posted message changes nothing; one of
 * a message that failed (the row says why) is tried again, which is how Meta's retries heal a failure.
 *
 * The conversation is the contact's latest on this number (closed ones reopen, or a new one starts, by the
 * workspace's `closedConversationReply`, as for widget visitors and mail), else a new one on channel
 * `whatsapp`, whose origin is the ad's referral or the widget hand-off its first message names.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { conversations, whatsappInbound } from '../../../db/schema';
import {
	chosenButton,
	type InboundContent,
	inboundContent,
	referralOf,
	referralOrigin,
	sentAtOf,
} from '../../../engines/whatsapp/inbound';
import { AppError } from '../../../lib/errors';
import { OutboundError } from '../../../lib/guarded-fetch';
import { type AttachmentMeta, MAX_VISITOR_TEXT } from '../../../model/messages';
import { WHATSAPP_CHANNEL, type WhatsappReferral } from '../../../model/whatsapp';
import { postMessage } from '../../conversations/live';
import { startConversation } from '../../conversations/start';
import { offeredButtons, postInbound } from '../inbound';
import { GraphError, type OpenNumber } from './graph';
import { handoffOf, recordArrival, touchContactOrigin, whatsappContact } from './inbound-contact';
import { storeWhatsappMedia } from './inbound-media';
import type { WebhookMessage } from './webhook-payload';

/**
 * What became of a message: `failed` may pass on a later try (Meta's redelivery brings it again: the webhook
 * answers 503 for it), `refused` will not (kept as failed with its reason, and the webhook answered 200).
 */
export type InboundOutcome = 'posted' | 'ignored' | 'failed' | 'refused' | 'repeated';

/** Whether trying again later may succeed: a refusal by a rule (ours or Meta's) never does. */
function transient(error: unknown): boolean {
	if (error instanceof GraphError) return error.retryable;
	if (error instanceof OutboundError) return error.transient;
	return !(error instanceof AppError);
}

/** The client message id (and start key) of a WhatsApp message. */
export function whatsappClientId(wamid: string): string {
	return `wa:${wamid}`.slice(0, 200);
}

/** Keeps the customer-service window open from this message (a later message only moves it later). */
async function openWindow(db: Database, number: OpenNumber, waId: string, at: number) {
	await db.run(sql`INSERT INTO whatsapp_windows (number_id, wa_id, workspace_id, last_inbound_at)
		VALUES (${number.id}, ${waId}, ${number.workspaceId}, ${at})
		ON CONFLICT (number_id, wa_id) DO UPDATE SET last_inbound_at = max(last_inbound_at, excluded.last_inbound_at)`);
}

/**
 * The contact's latest conversation with this number: the one its last message came into, or the one
 * Parley last sent it a message in (a reply to a campaign's template lands where the template went).
 */
async function latestConversation(db: Database, number: OpenNumber, contactId: string): Promise<string | null> {
	const row = await db.get<{ id: string } | undefined>(sql`
		SELECT id FROM (
			SELECT i.conversation_id AS id, i.received_at AS at FROM whatsapp_inbound i
			JOIN conversations c ON c.id = i.conversation_id AND c.workspace_id = i.workspace_id
			WHERE i.workspace_id = ${number.workspaceId} AND i.number_id = ${number.id} AND c.contact_id = ${contactId}
				AND i.status = 'posted'
			UNION ALL
			SELECT d.conversation_id AS id, d.created_at AS at FROM whatsapp_deliveries d
			JOIN conversations c ON c.id = d.conversation_id AND c.workspace_id = d.workspace_id
			WHERE d.workspace_id = ${number.workspaceId} AND d.number_id = ${number.id} AND c.contact_id = ${contactId}
		) ORDER BY at DESC LIMIT 1`);
	return row?.id ?? null;
}

interface Context {
	env: Env;
	db: Database;
	number: OpenNumber;
	/** The API origin the files are linked from (the webhook's own). */
	origin: string;
	now: number;
}

/** The message's text and files as posted into `conversationId`. */
async function messageBody(ctx: Context, content: InboundContent, wamid: string, conversationId: string) {
	let text = content.text;
	let attachments: AttachmentMeta[] = [];
	if (content.kind === 'media') {
		const stored = await storeWhatsappMedia(ctx, conversationId, wamid, content);
		attachments = stored.attachments;
		if (stored.note) text = `${text}\n\n[${stored.note}]`;
	}
	if (content.kind === 'reply') {
		const labels = await offeredButtons(ctx.db, ctx.number.workspaceId, conversationId);
		text = chosenButton(content, labels) ?? text;
	}
	const trimmed = text.trim() || '[empty message]';
	return {
		text: trimmed.length > MAX_VISITOR_TEXT ? `${trimmed.slice(0, MAX_VISITOR_TEXT - 1)}…` : trimmed,
		attachments,
	};
}

/** Starts the contact's new WhatsApp conversation, its origin from the referral or the hand-off. */
async function startFor(
	ctx: Context,
	contactId: string,
	message: WebhookMessage,
	content: InboundContent,
	referral: WhatsappReferral | null,
) {
	const handoff = content.kind === 'text' ? await handoffOf(ctx.db, ctx.number.workspaceId, content.text) : null;
	const started = await startConversation(ctx.env, ctx.db, {
		workspaceId: ctx.number.workspaceId,
		channel: WHATSAPP_CHANNEL,
		startKey: whatsappClientId(message.id),
		actor: { kind: 'contact', id: contactId },
		contact: { id: contactId },
		origin: handoff?.origin ?? null,
		adReferral: referral,
		message: null,
	});
	if (handoff) {
		await recordArrival(ctx.db, ctx.number.workspaceId, handoff.ref, started.id);
		await touchContactOrigin(ctx.env, ctx.db, ctx.number.workspaceId, contactId, handoff.origin, ctx.now);
	}
	return started.id;
}

/** Posts the message into its conversation (see the module's comment); the conversation and message ids. */
async function post(ctx: Context, message: WebhookMessage, profileName: string | null) {
	const { number } = ctx;
	const contactId = await whatsappContact(ctx.env, ctx.db, number.workspaceId, message.from, profileName, ctx.now);
	const content = inboundContent(message);
	const referral = referralOf(message);
	const latest = await latestConversation(ctx.db, number, contactId);
	const { conversationId, posted } = await postInbound({
		found: latest,
		start: () => startFor(ctx, contactId, message, content, referral),
		post: async (target) =>
			postMessage(ctx.env, {
				workspaceId: number.workspaceId,
				conversationId: target,
				authorKind: 'contact',
				authorId: null,
				...(await messageBody(ctx, content, message.id, target)),
				clientMessageId: whatsappClientId(message.id),
			}),
	});
	if (referral) {
		if (latest === conversationId) {
			// An ad tapped again by a customer already talking: the conversation keeps its first ad.
			await ctx.db
				.update(conversations)
				.set({
					ctwaClid: sql`COALESCE(${conversations.ctwaClid}, ${referral.ctwaClid ?? null})`,
					adReferral: sql`COALESCE(${conversations.adReferral}, ${JSON.stringify(referral)})`,
				})
				.where(and(eq(conversations.workspaceId, number.workspaceId), eq(conversations.id, conversationId)));
		}
		await touchContactOrigin(ctx.env, ctx.db, number.workspaceId, contactId, referralOrigin(referral), ctx.now);
	}
	return { conversationId, messageId: posted.message.id };
}

/**
 * Applies one webhook message of `number` (see the module's comment). `profileName` is the sender's
 * WhatsApp profile name from the same change's `contacts[]`.
 */
export async function applyInboundMessage(
	env: Env,
	db: Database,
	number: OpenNumber,
	message: WebhookMessage,
	profileName: string | null,
	origin: string,
	now = Date.now(),
): Promise<InboundOutcome> {
	const wamid = message.id;
	const sentAt = sentAtOf(message.timestamp, now);
	const known = await db.select().from(whatsappInbound).where(eq(whatsappInbound.wamid, wamid)).get();
	// Posted or ignored before (or another workspace's id, which a forged payload cannot reach: signed).
	if (known && (known.status !== 'failed' || known.workspaceId !== number.workspaceId)) return 'repeated';
	if (!known) {
		const claimed = await db
			.insert(whatsappInbound)
			.values({
				wamid,
				workspaceId: number.workspaceId,
				numberId: number.id,
				fromWaId: message.from.slice(0, 256),
				type: message.type,
				status: 'failed',
				failure: 'not finished',
				sentAt,
				receivedAt: now,
			})
			.onConflictDoNothing()
			.returning({ wamid: whatsappInbound.wamid });
		// A delivery of the same batch at the same moment has it: the room would refuse a second post anyway.
		if (claimed.length === 0) return 'repeated';
	}
	const done = (set: Partial<typeof whatsappInbound.$inferSelect>) =>
		db.update(whatsappInbound).set(set).where(eq(whatsappInbound.wamid, wamid));
	// A customer's number change is a notice about the contact, not a message to the team.
	if (message.type === 'system') {
		await done({ status: 'ignored', failure: null });
		return 'ignored';
	}
	try {
		await openWindow(db, number, message.from, sentAt);
		const posted = await post({ env, db, number, origin, now }, message, profileName);
		await done({ status: 'posted', failure: null, ...posted });
		return 'posted';
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		console.error(
			JSON.stringify({ message: 'whatsapp inbound failed', wamid, workspaceId: number.workspaceId, reason }),
		);
		await done({ status: 'failed', failure: reason.slice(0, 500) });
		return transient(error) ? 'failed' : 'refused';
	}
}
