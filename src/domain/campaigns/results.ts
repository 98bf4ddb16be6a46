/**
 * What a campaign shows before and after it goes out: a preview for a sample contact, a test send to one
 * contact, the replies (recorded by the events consumer) and its report.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { campaigns, contacts } from '../../db/schema';
import { TemplateError } from '../../engines/templates';
import { Conflict, Invalid } from '../../lib/errors';
import type { DomainEvent } from '../../model/events';
import { latestConversation } from '../conversations/conversations';
import { type CampaignRow, campaignRow } from './campaigns';
import { renderCampaignMail, testCampaignMail } from './email-sending';
import { audienceOf, postCampaignMessage, REPLY_WINDOW_MS, renderCampaign } from './sending';
import {
	checkWhatsappCampaign,
	enqueueCampaignTemplate,
	prepareWhatsappCampaign,
	whatsappCampaignMessage,
	whatsappReachable,
} from './whatsapp-sending';

/** How long after its message a deal a reached contact wins counts for the campaign. */
export const DEAL_WINDOW_MS = 30 * 86_400_000;

export const previewSchema = z
	.object({
		contactId: z.string().nullable().openapi({ description: 'The sample contact; null when the audience is empty.' }),
		text: z.string().nullable().openapi({ description: 'The message as that contact would get it.' }),
		subject: z
			.string()
			.nullable()
			.openapi({ description: 'An e-mail campaign: the mail’s subject as that contact would get it; else null.' }),
		audienceSize: z.number().int().openapi({
			description: 'How many contacts the audience holds now, opted-out ones left out (fixed when sending starts).',
		}),
	})
	.openapi('CampaignPreview');

export const previewRequestSchema = z
	.strictObject({
		contactId: z.string().min(1).max(64).optional().openapi({
			description: 'The contact to render it for; left out: the first contact of the audience.',
		}),
	})
	.openapi('CampaignPreviewRequest');

export const testSendSchema = z
	.strictObject({ contactId: z.string().min(1).max(64).openapi({ description: 'Who gets the test message.' }) })
	.openapi('CampaignTestSend');

export const testSentSchema = z
	.object({
		conversationId: z
			.string()
			.nullable()
			.openapi({ description: 'The conversation it went to; null for an e-mail campaign (a mail belongs to none).' }),
		messageId: z.string().nullable().openapi({ description: 'The message; null for an e-mail campaign.' }),
		text: z.string().openapi({ description: 'The message (an e-mail campaign: the mail’s body) as sent.' }),
		subject: z.string().nullable().openapi({ description: 'An e-mail campaign: the mail’s subject; else null.' }),
		deliveryId: z.string().nullable().openapi({
			description:
				'An e-mail campaign: the mail in `GET /v3/email/deliveries`; a WhatsApp campaign: the template’s delivery; queued to go out. Else null.',
		}),
	})
	.openapi('CampaignTestSent');

async function audienceQuery(db: Database, row: CampaignRow) {
	return and(eq(contacts.workspaceId, row.workspaceId), isNull(contacts.optedOutAt), await audienceOf(db, row));
}

/** The audience's size now, and the template rendered for a sample contact (a 422 when it fails to render). */
export async function previewCampaign(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	contactId: string | undefined,
	timeZone: string,
	now = Date.now(),
) {
	const row = await campaignRow(db, workspaceId, id);
	const where = await audienceQuery(db, row);
	// On WhatsApp the sample is one the template can reach (the others are skipped when it is sent).
	const samples = row.channel === 'whatsapp' ? and(where, whatsappReachable()) : where;
	const [size, sample] = await Promise.all([
		db.select({ n: sql<number>`count(*)` }).from(contacts).where(where).get(),
		db
			.select()
			.from(contacts)
			.where(contactId === undefined ? samples : and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, contactId)))
			.orderBy(asc(contacts.id))
			.get(),
	]);
	if (contactId !== undefined && !sample)
		throw new Invalid(`no contact ${contactId} in this workspace`, { field: ['contactId'] });
	let text: string | null = null;
	let subject: string | null = null;
	if (sample) {
		try {
			if (row.channel === 'email') ({ subject, body: text } = await renderCampaignMail(row, sample, timeZone, now));
			else if (row.channel === 'whatsapp') text = (await whatsappTemplateFor(env, db, row, sample, timeZone, now)).text;
			else text = await renderCampaign(row.template, sample, timeZone, now);
		} catch (error) {
			if (error instanceof TemplateError) throw new Invalid(error.message, { field: ['template'], cause: error });
			throw error;
		}
	}
	return { contactId: sample?.id ?? null, text, subject, audienceSize: size?.n ?? 0 };
}

/**
 * Sends the campaign's message to one contact, whatever the campaign's state, as a test: into its latest open
 * widget conversation or a new one; an e-mail campaign's as one mail (`testCampaignMail`). Not a recipient: counts and reports leave it out. An opted-out contact is
 * a 409, as for a real send.
 */
export async function testSend(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	contactId: string,
	timeZone: string,
	now = Date.now(),
) {
	const row = await campaignRow(db, workspaceId, id);
	const contact = await db
		.select()
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, contactId)))
		.get();
	if (!contact) throw new Invalid(`no contact ${contactId} in this workspace`, { field: ['contactId'] });
	if (contact.optedOutAt !== null) throw new Conflict(`Contact ${contactId} opted out of campaigns.`);
	if (row.channel === 'email') {
		const mailed = await testCampaignMail(env, db, row, contact, timeZone, now);
		return { conversationId: null, messageId: null, ...mailed };
	}
	if (row.channel === 'whatsapp') return testWhatsappCampaign(env, db, row, contact, timeZone, now);
	let text: string;
	try {
		text = await renderCampaign(row.template, contact, timeZone, now);
	} catch (error) {
		if (error instanceof TemplateError) throw new Invalid(error.message, { field: ['template'], cause: error });
		throw error;
	}
	const conversationId = await latestConversation(db, workspaceId, contactId, { channels: ['widget'], open: true });
	const sent = await postCampaignMessage(env, db, row, {
		contactId,
		conversationId,
		text,
		startKey: null,
		clientMessageId: null,
		now,
	});
	return { conversationId: sent.conversationId, messageId: sent.messageId, text, subject: null, deliveryId: null };
}

/**
 * A WhatsApp campaign's template for one contact, its number and template checked as a send checks them:
 * a 409 when the number is gone or the contact has no WhatsApp id or phone, a 422 when the template is not
 * approved or a variable does not render for the contact.
 */
async function whatsappTemplateFor(
	env: Env,
	db: Database,
	row: CampaignRow,
	contact: typeof contacts.$inferSelect,
	timeZone: string,
	now: number,
) {
	await checkWhatsappCampaign(env, db, row.workspaceId, row, 'send', now);
	const built = await whatsappCampaignMessage(
		await prepareWhatsappCampaign(env, db, row, now),
		row,
		contact,
		timeZone,
		now,
	);
	if (!('status' in built)) return built;
	if (built.status === 'skipped') throw new Conflict(`Contact ${contact.id} cannot get it: ${built.error}.`);
	throw new Invalid(built.error, { field: ['whatsappTemplate', 'variables'] });
}

/**
 * A WhatsApp campaign's test send: its template to one contact, stored in the contact's latest open WhatsApp
 * conversation (or a new one) and delivered as a real send's, under a key of its own (never a recipient's).
 */
async function testWhatsappCampaign(
	env: Env,
	db: Database,
	row: CampaignRow,
	contact: typeof contacts.$inferSelect,
	timeZone: string,
	now: number,
) {
	const message = await whatsappTemplateFor(env, db, row, contact, timeZone, now);
	const open = await latestConversation(db, row.workspaceId, contact.id, { channels: ['whatsapp'], open: true });
	const sent = await postCampaignMessage(env, db, row, {
		contactId: contact.id,
		conversationId: open,
		text: message.text,
		startKey: null,
		clientMessageId: null,
		now,
		channel: 'whatsapp',
	});
	const deliveryId = await enqueueCampaignTemplate(env, db, row, contact.id, message, sent, now, true);
	const { conversationId, messageId } = sent;
	return { conversationId, messageId, text: message.text, subject: null, deliveryId };
}

/** The workspaces among `workspaceIds` with a campaign started within the reply window: whose replies to look for. */
export async function campaigningWorkspaces(db: Database, workspaceIds: readonly string[], now = Date.now()) {
	if (workspaceIds.length === 0) return new Set<string>();
	const rows = await db
		.selectDistinct({ id: campaigns.workspaceId })
		.from(campaigns)
		.where(and(inArray(campaigns.workspaceId, [...workspaceIds]), gt(campaigns.startedAt, now - REPLY_WINDOW_MS)));
	return new Set(rows.map((row) => row.id));
}

/**
 * Records a contact's message as the reply to every campaign that reached it in the window before and has
 * no reply yet (idempotent: a redelivered event finds the reply recorded).
 */
export async function recordCampaignReply(db: Database, event: DomainEvent): Promise<void> {
	if (event.type !== 'message.created' || event.payload.message.authorKind !== 'contact') return;
	const { conversationId, createdAt } = event.payload.message;
	const at = Date.parse(createdAt);
	await db.run(sql`UPDATE campaign_recipients SET replied_at = CAST(${at} AS INTEGER), reply_conversation_id = ${conversationId}
		WHERE workspace_id = ${event.workspaceId} AND status = 'sent' AND replied_at IS NULL
		AND contact_id = (SELECT contact_id FROM conversations WHERE workspace_id = ${event.workspaceId} AND id = ${conversationId})
		AND sent_at <= CAST(${at} AS INTEGER) AND sent_at > CAST(${at - REPLY_WINDOW_MS} AS INTEGER)`);
}

export const campaignReportSchema = z
	.object({
		campaignId: z.string().openapi({ description: 'The campaign.' }),
		name: z.string().openapi({ description: 'Its name.' }),
		status: z.string().openapi({ description: 'Its state now.' }),
		targeted: z.number().int().openapi({ description: 'Contacts in the audience when sending started.' }),
		reach: z.number().int().openapi({ description: 'Contacts the message reached (sent).' }),
		failed: z.number().int().openapi({ description: 'Recipients the message could not reach (see their errors).' }),
		skipped: z.number().int().openapi({ description: 'Left out at their turn: opted out or deleted since the start.' }),
		replies: z.number().int().openapi({ description: 'Reached contacts who wrote back within 7 days.' }),
		replyRate: z.number().openapi({ description: 'replies / reach (0 when nobody was reached).' }),
		conversations: z.number().int().openapi({ description: 'Conversations in which reached contacts replied.' }),
		dealsWon: z.number().int().openapi({
			description: 'Deals of reached contacts created after the message (within 30 days) and marked won.',
		}),
		wonValue: z
			.array(
				z.object({
					currency: z.string().nullable().openapi({ description: 'ISO 4217 code; null for deals without one.' }),
					valueCents: z.number().int().openapi({ description: 'The sum, in minor units.' }),
				}),
			)
			.openapi({ description: 'The won deals’ value, per currency (minor units).' }),
	})
	.openapi('CampaignReport');
export type CampaignReport = z.infer<typeof campaignReportSchema>;

/** The campaign's results, in three statements over its recipients (and their deals). */
export async function campaignReport(db: Database, workspaceId: string, id: string): Promise<CampaignReport> {
	const row = await campaignRow(db, workspaceId, id);
	const [counts, deals] = await Promise.all([
		db.get<{ reach: number; failed: number; skipped: number; replies: number; conversations: number }>(sql`
			SELECT count(*) FILTER (WHERE status = 'sent') AS reach, count(*) FILTER (WHERE status = 'failed') AS failed,
			count(*) FILTER (WHERE status = 'skipped') AS skipped, count(replied_at) AS replies,
			count(DISTINCT reply_conversation_id) AS conversations
			FROM campaign_recipients WHERE campaign_id = ${row.id}`),
		db.all<{ currency: string | null; won: number; value: number }>(sql`
			SELECT d.currency AS currency, count(*) AS won, COALESCE(SUM(d.value_cents), 0) AS value
			FROM campaign_recipients r JOIN deals d ON d.workspace_id = r.workspace_id AND d.contact_id = r.contact_id
			WHERE r.campaign_id = ${row.id} AND r.status = 'sent' AND d.status = 'won'
			AND d.created_at >= r.sent_at AND d.created_at < r.sent_at + ${DEAL_WINDOW_MS}
			GROUP BY d.currency ORDER BY d.currency`),
	]);
	const reach = counts?.reach ?? 0;
	const replies = counts?.replies ?? 0;
	return {
		campaignId: row.id,
		name: row.name,
		status: row.status,
		targeted: row.targeted,
		reach,
		failed: counts?.failed ?? 0,
		skipped: counts?.skipped ?? 0,
		replies,
		replyRate: reach === 0 ? 0 : Math.round((replies / reach) * 10_000) / 10_000,
		conversations: counts?.conversations ?? 0,
		dealsWon: deals.reduce((sum, d) => sum + d.won, 0),
		wonValue: deals.map((d) => ({ currency: d.currency, valueCents: d.value })),
	};
}
