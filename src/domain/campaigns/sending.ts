/**
 * Sending a campaign. Starting fixes the audience: one D1 batch turns the campaign to `sending` and writes a
 * recipient row per contact (opted-out ones left out), numbered into batches of BATCH_SIZE; one Queue message
 * per batch follows. A batch claims its recipients a few at a time (the claim also checks that the campaign is
 * still sending, so a cancel stops every batch at its next claim), posts each message through the contact's
 * conversation room with a message id of its own, and records the outcome. A redelivered batch finds its
 * recipients sent, or claimed by a holder that died (taken over when the claim lapses, and posted again
 * with the same message id, which the room recognises): nobody is messaged twice. On e-mail the last step is a
 * mail enqueued once per (campaign, contact) instead (email-sending.ts); widget and e-mail campaigns draw
 * from one sending rate per workspace.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Database, runBatch, type Statement } from '../../db/client';
import { campaignRecipients, campaigns, contacts } from '../../db/schema';
import { workspaceDb } from '../../db/shards';
import { renderTemplate, TemplateError } from '../../engines/templates';
import { AppError, Conflict } from '../../lib/errors';
import type { Actor } from '../../model/actor';
import { CAMPAIGN_START, campaignStartKey } from '../../model/campaigns';
import { MAX_OPERATOR_TEXT } from '../../model/messages';
import { posted } from '../conversations/live';
import { startConversation } from '../conversations/start';
import { conversationRoom, rateLimiter } from '../objects';
import { workspaceTimeZone } from '../widget/settings';
import { audienceCondition, type CampaignAudience } from './audience';
import type { CampaignRow } from './campaigns';
import { mailCampaignTo, startingState } from './email-sending';
import {
	type CampaignTemplateMessage,
	enqueueCampaignTemplate,
	type PreparedWhatsapp,
	prepareWhatsappCampaign,
	whatsappCampaignMessage,
	whatsappConversationSql,
	whatsappStartingState,
} from './whatsapp-sending';

/** Recipients per Queue message. */
export const BATCH_SIZE = 100;
/** Recipients a batch claims (and checks the campaign is still sending for) at a time. */
const CLAIM_SIZE = 10;
/**
 * The same on WhatsApp, which the workspace's rate does not hold back (the number's pace does, further on):
 * larger, so the deliveries are enqueued ahead of the number's 76.8 a second.
 */
const WHATSAPP_CLAIM_SIZE = 25;
/** How long a claim holds before another delivery of the batch may take it over. */
const CLAIM_MS = 60_000;
/** Queue messages per `sendBatch` call (the Queue's own limit). */
const SENDS_PER_CALL = 100;
/** How long after a campaign's message a contact's message counts as a reply. */
export const REPLY_WINDOW_MS = 7 * 86_400_000;

export const campaignBatchSchema = z.object({
	workspaceId: z.string(),
	campaignId: z.string(),
	batch: z.number().int().min(0),
});
export type CampaignBatch = z.infer<typeof campaignBatchSchema>;

export function campaignActor(campaignId: string): Actor {
	return { kind: 'campaign', id: campaignId };
}

/** The message id of a campaign's message in a contact's conversation: one per campaign and conversation. */
function campaignMessageId(campaignId: string): string {
	return `campaign:${campaignId}`;
}

/** The condition on `contacts` that selects a campaign's audience (a list: read from the campaign row itself). */
export async function audienceOf(db: Database, row: CampaignRow): Promise<SQL | undefined> {
	const audience = row.audience as CampaignAudience;
	if (audience.kind === 'contacts') {
		return sql`${contacts.id} IN (SELECT value FROM json_each((SELECT audience FROM campaigns WHERE id = ${row.id}), '$.contactIds'))`;
	}
	return audienceCondition(db, row.workspaceId, audience);
}

/**
 * Starts sending: fixes the audience and queues its batches. The campaign must still be in the state `row` was
 * read in (a draft or a scheduled campaign); a 409 when it moved on.
 */
export async function startSending(env: Env, db: Database, row: CampaignRow, now: number): Promise<void> {
	const { workspaceId, id } = row;
	const audience = await audienceOf(db, row);
	const starting = row.channel === 'whatsapp' ? whatsappStartingState() : startingState(row.channel);
	const statements = [
		db
			.update(campaigns)
			.set({ status: 'sending', startedAt: now, updatedAt: now })
			.where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, row.status))),
		sql`INSERT INTO campaign_recipients (workspace_id, campaign_id, contact_id, batch, status, error)
			SELECT ${workspaceId}, ${id}, ${contacts.id}, (ROW_NUMBER() OVER (ORDER BY ${contacts.id}) - 1) / ${sql.raw(String(BATCH_SIZE))}, ${starting.status}, ${starting.error}
			FROM ${contacts}
			WHERE ${and(eq(contacts.workspaceId, workspaceId), sql`${contacts.optedOutAt} IS NULL`, audience)}
			AND EXISTS (SELECT 1 FROM campaigns WHERE id = ${id} AND status = 'sending' AND started_at = CAST(${now} AS INTEGER))`,
		sql`UPDATE campaigns SET targeted = (SELECT count(*) FROM campaign_recipients WHERE campaign_id = ${id})
			WHERE id = ${id} AND status = 'sending' AND started_at = CAST(${now} AS INTEGER) RETURNING targeted`,
	];
	const results = await runBatch(db, statements);
	if ((results[0]?.meta.changes ?? 0) === 0) throw new Conflict(`Campaign ${id} is no longer ${row.status}.`);
	const targeted = (results[2]?.results[0] as { targeted: number } | undefined)?.targeted ?? 0;
	const batches = Array.from({ length: Math.ceil(targeted / BATCH_SIZE) }, (_, batch) => batch);
	await queueBatches(env, workspaceId, id, batches);
	// An audience of nobody is sent at once.
	if (targeted === 0) await finishIfDone(db, id, now);
}

export async function queueBatches(env: Env, workspaceId: string, campaignId: string, batches: readonly number[]) {
	for (let i = 0; i < batches.length; i += SENDS_PER_CALL) {
		await env.CAMPAIGN_SENDS.sendBatch(
			batches.slice(i, i + SENDS_PER_CALL).map((batch) => ({ body: { workspaceId, campaignId, batch } })),
		);
	}
}

/** Marks a sending campaign sent once no recipient is left to send (idempotent: only the first call changes it). */
async function finishIfDone(db: Database, campaignId: string, now: number): Promise<void> {
	await db.run(sql`UPDATE campaigns SET status = 'sent', finished_at = CAST(${now} AS INTEGER), updated_at = CAST(${now} AS INTEGER)
		WHERE id = ${campaignId} AND status = 'sending'
		AND NOT EXISTS (SELECT 1 FROM campaign_recipients WHERE campaign_id = ${campaignId} AND status IN ('pending', 'sending'))`);
}

interface Claimed {
	contactId: string;
	conversationId: string | null;
}

/**
 * Claims up to `count` of the batch's recipients that are pending (or whose claim lapsed) while the campaign
 * is sending, and fixes the conversation each message goes to: the one this campaign opened with the contact
 * (a retry), else the contact's latest open widget conversation; none (a new one) otherwise.
 */
async function claim(
	db: Database,
	message: CampaignBatch,
	campaign: CampaignRow,
	count: number,
	now: number,
): Promise<Claimed[]> {
	const { campaignId, batch } = message;
	const latest =
		campaign.channel === 'whatsapp'
			? whatsappConversationSql(campaign.whatsappNumberId ?? '')
			: sql`(SELECT c.id FROM conversations c WHERE c.workspace_id = campaign_recipients.workspace_id
				AND c.contact_id = campaign_recipients.contact_id AND c.channel = 'widget' AND c.status != 'closed'
				ORDER BY c.last_activity_at DESC, c.id DESC LIMIT 1)`;
	// A mail goes to no conversation: an e-mail campaign's recipients keep none.
	const conversation =
		campaign.channel === 'email'
			? sql`conversation_id`
			: sql`COALESCE(conversation_id,
			(SELECT c.id FROM conversations c WHERE c.workspace_id = campaign_recipients.workspace_id
				AND c.start_key = ${CAMPAIGN_START} || campaign_recipients.campaign_id || ':' || campaign_recipients.contact_id),
			${latest})`;
	const result =
		await db.run(sql`UPDATE campaign_recipients SET status = 'sending', claimed_until = CAST(${now + CLAIM_MS} AS INTEGER),
		conversation_id = ${conversation}
		WHERE campaign_id = ${campaignId} AND contact_id IN (
			SELECT contact_id FROM campaign_recipients WHERE campaign_id = ${campaignId} AND batch = CAST(${batch} AS INTEGER)
			AND (status = 'pending' OR (status = 'sending' AND claimed_until < CAST(${now} AS INTEGER)))
			ORDER BY contact_id LIMIT CAST(${count} AS INTEGER))
		AND EXISTS (SELECT 1 FROM campaigns WHERE id = ${campaignId} AND status = 'sending')
		RETURNING contact_id AS contactId, conversation_id AS conversationId`);
	return result.results as unknown as Claimed[];
}

type Outcome =
	| { status: 'sent'; conversationId: string | null; messageId: string | null }
	| { status: 'failed' | 'skipped'; error: string };

interface Sending {
	env: Env;
	db: Database;
	campaign: CampaignRow;
	timeZone: string;
	now: number;
	/** A WhatsApp campaign's number and template, prepared once per batch delivery; null on other channels. */
	whatsapp: PreparedWhatsapp | null;
}

/** Renders and posts one recipient's message; an infrastructure error is thrown (the claim lapses, a retry resumes). */
async function sendTo(
	sending: Sending,
	recipient: Claimed,
	contact: typeof contacts.$inferSelect | undefined,
): Promise<Outcome> {
	const { env, db, campaign, now } = sending;
	if (!contact) return { status: 'skipped', error: 'the contact was deleted' };
	if (contact.optedOutAt !== null) return { status: 'skipped', error: 'the contact opted out' };
	if (campaign.channel === 'email') {
		const mailed = await mailCampaignTo(env, db, campaign, contact, sending.timeZone, now);
		return mailed.status === 'sent' ? { status: 'sent', conversationId: null, messageId: null } : mailed;
	}
	let text: string;
	let template: CampaignTemplateMessage | null = null;
	if (sending.whatsapp !== null) {
		const built = await whatsappCampaignMessage(sending.whatsapp, campaign, contact, sending.timeZone, now);
		if ('status' in built) return built;
		template = built;
		text = built.text;
	} else {
		try {
			text = await renderCampaign(campaign.template, contact, sending.timeZone, now);
		} catch (error) {
			if (error instanceof TemplateError) return { status: 'failed', error: `template: ${error.message}` };
			throw error;
		}
	}
	try {
		const posted = await postCampaignMessage(env, db, campaign, {
			contactId: contact.id,
			conversationId: recipient.conversationId,
			text,
			startKey: campaignStartKey(campaign.id, contact.id),
			clientMessageId: campaignMessageId(campaign.id),
			now,
			channel: template === null ? 'widget' : 'whatsapp',
		});
		// After the message is stored: a retry posts it again (the room knows its id) and finds the delivery.
		if (template !== null) await enqueueCampaignTemplate(env, db, campaign, contact.id, template, posted, now);
		return { status: 'sent', conversationId: posted.conversationId, messageId: posted.messageId };
	} catch (error) {
		if (error instanceof AppError) return { status: 'failed', error: error.message };
		throw error;
	}
}

/**
 * Posts a campaign's message to a contact as a bot message caused by the campaign: into `conversationId`, or
 * a new conversation on `channel` (found again by `startKey` when a retry starts it twice). A message id already
 * used in the conversation (a retry after the message went out, rendered differently this time, with
 * `{{ current_time }}` say) means it was sent: which message it was, the room keeps (null here).
 */
export async function postCampaignMessage(
	env: Env,
	db: Database,
	campaign: Pick<CampaignRow, 'id' | 'workspaceId'>,
	send: {
		contactId: string;
		conversationId: string | null;
		text: string;
		startKey: string | null;
		clientMessageId: string | null;
		now: number;
		channel?: 'widget' | 'whatsapp';
	},
): Promise<{ conversationId: string; messageId: string | null; seq: number | null }> {
	const actor = campaignActor(campaign.id);
	const { workspaceId } = campaign;
	const conversationId =
		send.conversationId ??
		(
			await startConversation(
				env,
				db,
				{
					workspaceId,
					contact: { id: send.contactId },
					channel: send.channel ?? 'widget',
					startKey: send.startKey,
					actor,
				},
				send.now,
			)
		).id;
	const command = {
		workspaceId,
		conversationId,
		authorKind: 'bot' as const,
		authorId: campaign.id,
		text: send.text,
		attachments: [],
		clientMessageId: send.clientMessageId,
		actor,
	};
	const outcome = await conversationRoom(env, conversationId).post(command, null);
	if (outcome.status === 'conflict') return { conversationId, messageId: null, seq: null };
	const { message } = posted(outcome, conversationId);
	return { conversationId, messageId: message.id, seq: message.seq };
}

/** A campaign's text for one contact; a TemplateError when it fails or renders empty. */
export async function renderCampaign(
	template: string,
	contact: typeof contacts.$inferSelect,
	timeZone: string,
	now: number,
): Promise<string> {
	const text = (await renderTemplate(template, { contact, timeZone, now }, MAX_OPERATOR_TEXT)).trim();
	if (text === '') throw new TemplateError('it renders empty for this contact');
	return text;
}

/** Writes the outcomes of a claim in one round trip. */
async function record(db: Database, campaignId: string, outcomes: Array<[string, Outcome]>, now: number) {
	const statements: Statement[] = outcomes.map(([contactId, outcome]) =>
		db
			.update(campaignRecipients)
			.set(
				outcome.status === 'sent'
					? {
							status: 'sent',
							conversationId: outcome.conversationId,
							messageId: outcome.messageId,
							sentAt: now,
							claimedUntil: null,
							error: null,
						}
					: { status: outcome.status, error: outcome.error, claimedUntil: null },
			)
			.where(and(eq(campaignRecipients.campaignId, campaignId), eq(campaignRecipients.contactId, contactId))),
	);
	if (statements.length === 0) return;
	// The campaign's progress mark: the sweep leaves a campaign that moves alone.
	statements.push(db.update(campaigns).set({ updatedAt: now }).where(eq(campaigns.id, campaignId)));
	await runBatch(db, statements);
}

/** What one delivery of a batch did: the messages that went out, and when the rest was queued again for. */
export interface BatchOutcome {
	sent: number;
	/** The delay of the batch queued again for the next window (the workspace's limit was reached); else null. */
	deferredSeconds: number | null;
}

/**
 * Sends one batch of a campaign, CLAIM_SIZE recipients at a time within the workspace's rate limit
 * (`perMinute` messages a minute over all its campaigns, widget messages and mails alike: one figure says how
 * hard a workspace may reach out, and a mail enqueued here is handed to the provider within moments). Over the limit, the batch is queued again for the
 * next window instead.
 */
export async function sendCampaignBatch(
	env: Env,
	message: CampaignBatch,
	perMinute = Number(env.CAMPAIGN_MESSAGES_PER_MINUTE),
	clock: () => number = Date.now,
): Promise<BatchOutcome> {
	const db = await workspaceDb(env, message.workspaceId);
	const campaign = await db
		.select()
		.from(campaigns)
		.where(and(eq(campaigns.id, message.campaignId), eq(campaigns.workspaceId, message.workspaceId)))
		.get();
	if (campaign?.status !== 'sending') return { sent: 0, deferredSeconds: null };
	const onWhatsapp = campaign.channel === 'whatsapp';
	const sending: Sending = {
		env,
		db,
		campaign,
		timeZone: await workspaceTimeZone(db, campaign.workspaceId),
		now: 0,
		whatsapp: onWhatsapp ? await prepareWhatsappCampaign(env, db, campaign, clock()) : null,
	};
	const limiter = rateLimiter(env, `campaigns:${campaign.workspaceId}`);
	let sent = 0;
	for (;;) {
		const allowance = onWhatsapp
			? { granted: WHATSAPP_CLAIM_SIZE, resetSeconds: 0 }
			: await limiter.hit(perMinute, 60, CLAIM_SIZE);
		if (allowance.granted === 0) {
			await env.CAMPAIGN_SENDS.send(message, { delaySeconds: allowance.resetSeconds });
			return { sent, deferredSeconds: allowance.resetSeconds };
		}
		sending.now = clock();
		const claimed = await claim(db, message, campaign, allowance.granted, sending.now);
		if (claimed.length === 0) break;
		const found = await db
			.select()
			.from(contacts)
			.where(
				and(
					eq(contacts.workspaceId, campaign.workspaceId),
					inArray(
						contacts.id,
						claimed.map((r) => r.contactId),
					),
				),
			);
		const byId = new Map(found.map((contact) => [contact.id, contact]));
		const settled = await Promise.allSettled(claimed.map((r) => sendTo(sending, r, byId.get(r.contactId))));
		const outcomes: Array<[string, Outcome]> = [];
		for (const [i, result] of settled.entries()) {
			if (result.status === 'fulfilled') outcomes.push([(claimed[i] as Claimed).contactId, result.value]);
		}
		await record(db, campaign.id, outcomes, sending.now);
		sent += outcomes.filter(([, outcome]) => outcome.status === 'sent').length;
		const thrown = settled.find((result) => result.status === 'rejected');
		// Left claimed: the retry of this batch takes them over once the claim lapses.
		if (thrown) throw thrown.reason;
		if (claimed.length < allowance.granted) break;
	}
	await finishIfDone(db, campaign.id, clock());
	return { sent, deferredSeconds: null };
}
