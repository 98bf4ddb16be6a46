/**
 * A campaign on channel `whatsapp`: an approved template of a connected number, sent to each contact with a
 * WhatsApp id or a phone. Its recipients are fixed and claimed like any campaign's (sending.ts); for each
 * claimed contact the template's variables (Liquid) are rendered, the filled-in body is posted as the
 * campaign's message into the contact's WhatsApp conversation on that number (or a new one), so the answer
 * lands there and counts as the campaign's reply, and one delivery of kind `campaign` is enqueued under the
 * key `campaign:<campaign>:<contact>`. The WhatsApp outbox records one delivery per key, and its sender
 * claims each before the call: a redelivered batch, or a retry after a claim lapsed, sends nobody a second
 * template. The number's own pace (its RateLimiter) spaces the sends, so a WhatsApp campaign does not also
 * draw from the workspace's campaign rate.
 */
import { z } from '@hono/zod-openapi';
import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { campaigns, contacts } from '../../db/schema';
import { checkTemplate } from '../../engines/templates';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { campaignDeliveryKey } from '../../model/campaigns';
import { type OpenNumber, openNumber } from '../channels/whatsapp/graph';
import { enqueueWhatsapp } from '../channels/whatsapp/outbox';
import {
	filledTemplate,
	findTemplate,
	renderVariables,
	templateSendSchema,
	variableSources,
	type WhatsappTemplate,
} from '../channels/whatsapp/templates';

type CampaignRow = typeof campaigns.$inferSelect;
type ContactRow = typeof contacts.$inferSelect;

export const NO_WHATSAPP = 'the contact has no WhatsApp id or phone';

/** The fields a WhatsApp campaign adds to a new campaign and to its changes. */
export const whatsappCampaignFields = {
	whatsappNumberId: z.string().min(1).max(64).optional().openapi({
		description: 'Required on WhatsApp, refused elsewhere: the connected number it goes from (`wan_…`).',
		example: 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	}),
	whatsappTemplate: templateSendSchema.optional().openapi({
		description:
			'Required on WhatsApp, refused elsewhere: an approved template of that number, its variables Liquid rendered per contact.',
	}),
};

/** The customer's WhatsApp id: the contact's own, else its phone in digits; null with neither. */
export function whatsappIdOf(contact: Pick<ContactRow, 'whatsappId' | 'phone'>): string | null {
	const id = contact.whatsappId ?? contact.phone?.replace(/\D/g, '') ?? '';
	return id === '' ? null : id;
}

/** The contacts a WhatsApp template can reach, in SQL over `contacts`: those with a WhatsApp id or a phone. */
export function whatsappReachable(): SQL {
	return sql`(contacts.whatsapp_id IS NOT NULL OR COALESCE(contacts.phone, '') != '')`;
}

/** A recipient's first state, in SQL over `contacts`: a contact with no WhatsApp id and no phone is skipped at once. */
export function whatsappStartingState(): { status: SQL; error: SQL } {
	const none = sql`(NOT ${whatsappReachable()})`;
	return {
		status: sql`CASE WHEN ${none} THEN 'skipped' ELSE 'pending' END`,
		error: sql`CASE WHEN ${none} THEN ${NO_WHATSAPP} ELSE NULL END`,
	};
}

/**
 * The conversation a WhatsApp campaign's message goes to, in SQL over `campaign_recipients` (the claim's): the
 * contact's latest open WhatsApp conversation on the campaign's number (one the customer wrote into from it, or
 * Parley sent into from it); none (a new one) otherwise.
 */
export function whatsappConversationSql(numberId: string): SQL {
	return sql`(SELECT c.id FROM conversations c WHERE c.workspace_id = campaign_recipients.workspace_id
		AND c.contact_id = campaign_recipients.contact_id AND c.channel = 'whatsapp' AND c.status != 'closed'
		AND (EXISTS (SELECT 1 FROM whatsapp_inbound i WHERE i.workspace_id = c.workspace_id AND i.conversation_id = c.id AND i.number_id = ${numberId})
			OR EXISTS (SELECT 1 FROM whatsapp_deliveries d WHERE d.workspace_id = c.workspace_id AND d.conversation_id = c.id AND d.number_id = ${numberId}))
		ORDER BY c.last_activity_at DESC, c.id DESC LIMIT 1)`;
}

/**
 * Checks what a campaign says of WhatsApp, when it is saved (`save`) and sent or scheduled (`send`): only a
 * WhatsApp campaign names a number and a template, and it must name both; the number must be connected to
 * the workspace (a 422 when saved, a 409 when sent: it was disconnected since) and the template one of its
 * approved templates (Meta's list), its variables as many as the template's placeholders and valid Liquid.
 */
export async function checkWhatsappCampaign(
	env: Env,
	db: Database,
	workspaceId: string,
	campaign: Pick<CampaignRow, 'channel' | 'whatsappNumberId' | 'whatsappTemplate'>,
	when: 'save' | 'send',
	now = Date.now(),
): Promise<void> {
	const { channel, whatsappNumberId, whatsappTemplate } = campaign;
	if (channel !== 'whatsapp') {
		if (whatsappNumberId != null || whatsappTemplate != null) {
			const field = whatsappNumberId != null ? 'whatsappNumberId' : 'whatsappTemplate';
			throw new Invalid('only a WhatsApp campaign names a WhatsApp number and template', { field: [field] });
		}
		return;
	}
	if (!whatsappNumberId) {
		throw new Invalid('a WhatsApp campaign needs the connected number it goes from', { field: ['whatsappNumberId'] });
	}
	if (!whatsappTemplate) {
		throw new Invalid('a WhatsApp campaign needs an approved template of its number', { field: ['whatsappTemplate'] });
	}
	let number: OpenNumber;
	try {
		number = await openNumber(env, db, workspaceId, whatsappNumberId);
	} catch (error) {
		if (!(error instanceof NotFound)) throw error;
		const missing = `No WhatsApp number ${whatsappNumberId} is connected to this workspace`;
		if (when === 'send') throw new Conflict(`${missing}: connect it, or give the campaign another number.`);
		throw new Invalid(`${missing} (GET /v3/whatsapp/numbers lists them)`, { field: ['whatsappNumberId'] });
	}
	const { name, language, variables } = whatsappTemplate;
	const template = await findTemplate(env, number, name, language, now);
	if (!template) {
		throw new Invalid(`no approved template ${name} in ${language} on WhatsApp number ${number.id}`, {
			field: ['whatsappTemplate', 'name'],
		});
	}
	for (const [i, source] of variableSources(template, variables).entries()) {
		const problem = checkTemplate(source);
		if (problem) {
			throw new Invalid(`variable ${template.variables[i]}: ${problem}`, { field: ['whatsappTemplate', 'variables'] });
		}
	}
}

/** What a batch of a WhatsApp campaign sends with: its number (opened once) and its template; or why none can go. */
export type PreparedWhatsapp = { number: OpenNumber; template: WhatsappTemplate } | { failed: string };

/** Opens the campaign's number and finds its template, once per batch delivery. */
export async function prepareWhatsappCampaign(
	env: Env,
	db: Database,
	campaign: CampaignRow,
	now: number,
): Promise<PreparedWhatsapp> {
	const { whatsappNumberId, whatsappTemplate } = campaign;
	if (!whatsappNumberId || !whatsappTemplate) return { failed: 'the campaign names no WhatsApp number or template' };
	let number: OpenNumber;
	try {
		number = await openNumber(env, db, campaign.workspaceId, whatsappNumberId);
	} catch (error) {
		if (error instanceof NotFound) return { failed: 'the WhatsApp number is no longer connected' };
		throw error;
	}
	const template = await findTemplate(env, number, whatsappTemplate.name, whatsappTemplate.language, now);
	if (!template) {
		return { failed: `template ${whatsappTemplate.name} (${whatsappTemplate.language}) is no longer approved` };
	}
	return { number, template };
}

/** One contact's template: the text stored as the campaign's message, and what its delivery sends. */
export interface CampaignTemplateMessage {
	waId: string;
	numberId: string;
	text: string;
	toSend: ReturnType<typeof filledTemplate>['toSend'];
}

/**
 * The campaign's template for one contact, or why it gets none: skipped with no WhatsApp id or phone, failed
 * when the number or the template is gone or a variable does not render for it.
 */
export async function whatsappCampaignMessage(
	prepared: PreparedWhatsapp,
	campaign: CampaignRow,
	contact: ContactRow,
	timeZone: string,
	now: number,
): Promise<CampaignTemplateMessage | { status: 'failed' | 'skipped'; error: string }> {
	const waId = whatsappIdOf(contact);
	if (waId === null) return { status: 'skipped', error: NO_WHATSAPP };
	if ('failed' in prepared) return { status: 'failed', error: prepared.failed };
	const given = campaign.whatsappTemplate?.variables ?? [];
	let variables: string[];
	try {
		variables = await renderVariables(prepared.template, given, { contact, timeZone, now });
	} catch (error) {
		if (error instanceof Invalid) return { status: 'failed', error: `template: ${error.message}` };
		throw error;
	}
	const filled = filledTemplate(prepared.template, variables);
	return { waId, numberId: prepared.number.id, text: filled.text, toSend: filled.toSend };
}

/**
 * Enqueues the template's delivery once per (campaign, contact), with the message it was stored as; a test
 * send (`test`) gets a key of its own each time, so it is never a recipient's.
 */
export async function enqueueCampaignTemplate(
	env: Env,
	db: Database,
	campaign: Pick<CampaignRow, 'id' | 'workspaceId'>,
	contactId: string,
	message: CampaignTemplateMessage,
	posted: { conversationId: string; seq: number | null },
	now: number,
	test = false,
): Promise<string> {
	const { id } = await enqueueWhatsapp(
		env,
		db,
		{
			workspaceId: campaign.workspaceId,
			numberId: message.numberId,
			kind: 'campaign',
			dedupeKey: test
				? `campaign-test:${campaign.id}:${contactId}:${newId('test', now)}`
				: campaignDeliveryKey(campaign.id, contactId),
			recipient: message.waId,
			conversationId: posted.conversationId,
			messageSeq: posted.seq ?? undefined,
			contactId,
			campaignId: campaign.id,
			template: message.toSend,
		},
		now,
	);
	return id;
}
