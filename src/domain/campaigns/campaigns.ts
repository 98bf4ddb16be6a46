/**
 * Bulk messaging campaigns: a Liquid message, an audience (a saved contact filter or a list of contacts), a
 * schedule and a channel. This module is the resource (create, read, change, delete, preview); sending,
 * cancelling and replies are in campaign-sending.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { campaignRecipients, campaigns } from '../../db/schema';
import { checkTemplate, localDateTime } from '../../engines/templates';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { iso, isoOrNull, newId } from '../../lib/ids';
import { anyPresent, present, type SchemaRule, schemaRules, when } from '../../lib/schema-rules';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, RECIPIENT_STATUSES, type RecipientStatus } from '../../model/campaigns';
import { templateSendSchema } from '../channels/whatsapp/templates';
import { type CampaignAudience, campaignAudienceSchema, checkAudience } from './audience';
import { checkWhatsappCampaign, whatsappCampaignFields } from './whatsapp-sending';

/** The recipients' counts by status, and how many replied. */
export const campaignCountsSchema = z
	.object({
		targeted: z
			.number()
			.int()
			.openapi({ description: 'Contacts in the audience when sending started (opted-out ones left out).' }),
		...Object.fromEntries(
			RECIPIENT_STATUSES.map((status) => [
				status,
				z
					.number()
					.int()
					.openapi({ description: `Recipients ${status}.` }),
			]),
		),
		replied: z.number().int().openapi({ description: 'Recipients who wrote back within the reply window (7 days).' }),
	} as Record<'targeted' | RecipientStatus | 'replied', z.ZodNumber>)
	.openapi('CampaignCounts');
export type CampaignCounts = z.infer<typeof campaignCountsSchema>;

export const campaignSchema = z
	.object({
		id: z.string().openapi({ description: 'The campaign id.', example: 'cmp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'Its name, for the team.' }),
		template: z.string().openapi({
			description:
				'The message, a Liquid template (`{{ contact.name }}` and the rest): on e-mail, the body of the mail; on WhatsApp, the template’s name.',
		}),
		subject: z.string().nullable().openapi({
			description: "An e-mail campaign's subject, a Liquid template (one line once rendered); null on the widget.",
		}),
		audience: campaignAudienceSchema,
		channel: z.enum(CAMPAIGN_CHANNELS).openapi({
			description:
				"Where it goes. `widget`: into the contact's latest open widget conversation (or a new one), live and with the unread badge on the next visit. `email`: a mail to the contact's address with an unsubscribe link; contacts with no address or a failing one are skipped. `whatsapp`: an approved template from a connected number, into the contact's WhatsApp conversation on it (or a new one); contacts with no WhatsApp id and no phone are skipped.",
		}),
		whatsappNumberId: z.string().nullable().openapi({ description: 'A WhatsApp campaign’s number; else null.' }),
		whatsappTemplate: templateSendSchema
			.nullable()
			.openapi({ description: 'A WhatsApp campaign’s approved template and its variables; else null.' }),
		status: z.enum(CAMPAIGN_STATUSES).openapi({
			description: '`draft` → `scheduled` → `sending` → `sent`; `cancelled` from scheduled or sending.',
		}),
		sendAt: z.string().nullable().openapi({ description: 'When a scheduled campaign starts sending (ISO 8601 UTC).' }),
		sendAtLocal: z
			.string()
			.nullable()
			.openapi({ description: 'The same time in the workspace time zone (YYYY-MM-DDTHH:mm).' }),
		timeZone: z.string().openapi({ description: "The workspace time zone (its business hours')." }),
		counts: campaignCountsSchema,
		createdBy: z.string().nullable().openapi({ description: 'The operator who created it.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When it last changed or made progress (ISO 8601).' }),
		startedAt: z.string().nullable().openapi({ description: 'When sending started (the audience was fixed then).' }),
		finishedAt: z
			.string()
			.nullable()
			.openapi({ description: 'When the last recipient was done, or the campaign cancelled.' }),
	})
	.openapi('Campaign');
export type CampaignView = z.infer<typeof campaignSchema>;

/** A rule's branch for a campaign on `channel` (named: the default, the widget, is whatever else). */
const channelIs = (channel: CampaignRow['channel']): SchemaRule => ({
	required: ['channel'],
	properties: { channel: { const: channel } },
});

const name = z.string().trim().min(1).max(200);
const template = z.string().min(1).max(4000);
const subject = z.string().min(1).max(500);

export const newCampaignSchema = z
	.strictObject({
		name: name.openapi({ description: 'Its name, for the team.', example: 'Black Friday' }),
		template: template.optional().openapi({
			description:
				'Required on the widget and e-mail, refused on WhatsApp (which sends `whatsappTemplate`): the message, a Liquid template (`{{ contact.name }}`, `{{ contact.custom_fields.plan }}`…).',
			example: 'Hi {{ contact.name }}, our sale starts today!',
		}),
		subject: subject.optional().openapi({
			description: 'Required on e-mail, refused on the widget: the subject, a Liquid template.',
			example: 'Our sale, {{ contact.name }}',
		}),
		audience: campaignAudienceSchema,
		channel: z.enum(CAMPAIGN_CHANNELS).default('widget'),
		...whatsappCampaignFields,
	})
	// What each channel needs is checked by the domain (checkMessage, checkSubject, the WhatsApp fields' check):
	// the document states it for clients that validate.
	.openapi(
		'NewCampaign',
		schemaRules(
			when(
				channelIs('email'),
				{ ...present('template', 'subject'), not: anyPresent(['whatsappNumberId', 'whatsappTemplate']) },
				when(
					channelIs('whatsapp'),
					{ ...present('whatsappNumberId', 'whatsappTemplate'), not: anyPresent(['template', 'subject']) },
					{ ...present('template'), not: anyPresent(['subject', 'whatsappNumberId', 'whatsappTemplate']) },
				),
			),
		),
	);

export const campaignChangesSchema = z
	.strictObject({
		name: name.optional().openapi({ description: 'Its name, for the team.' }),
		template: template.optional().openapi({ description: 'The message, a Liquid template.' }),
		subject: subject.optional().openapi({ description: "An e-mail campaign's subject, a Liquid template." }),
		audience: campaignAudienceSchema.optional(),
		...whatsappCampaignFields,
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('CampaignChanges', { minProperties: 1 });

export const campaignFiltersSchema = z.strictObject({
	status: z.enum(CAMPAIGN_STATUSES).optional().openapi({ description: 'Only campaigns in this state.' }),
});

export type CampaignRow = typeof campaigns.$inferSelect;

const EMPTY_COUNTS = Object.fromEntries([...RECIPIENT_STATUSES, 'replied'].map((k) => [k, 0]));

/** The recipients' counts of each campaign, in one statement. */
async function countsOf(db: Database, rows: readonly CampaignRow[]): Promise<Map<string, CampaignCounts>> {
	const counts = new Map<string, CampaignCounts>(
		rows.map((row) => [row.id, { ...EMPTY_COUNTS, targeted: row.targeted } as CampaignCounts]),
	);
	const started = rows.filter((row) => row.startedAt !== null).map((row) => row.id);
	if (started.length === 0) return counts;
	const grouped = await db
		.select({
			campaignId: campaignRecipients.campaignId,
			status: campaignRecipients.status,
			n: sql<number>`count(*)`,
			replied: sql<number>`count(${campaignRecipients.repliedAt})`,
		})
		.from(campaignRecipients)
		.where(inArray(campaignRecipients.campaignId, started))
		.groupBy(campaignRecipients.campaignId, campaignRecipients.status);
	for (const row of grouped) {
		const count = counts.get(row.campaignId);
		if (!count) continue;
		count[row.status] = row.n;
		count.replied += row.replied;
	}
	return counts;
}

function campaignView(row: CampaignRow, counts: CampaignCounts, timeZone: string): CampaignView {
	const local = row.sendAt === null ? null : localDateTime(row.sendAt, timeZone);
	return {
		id: row.id,
		name: row.name,
		template: row.template,
		subject: row.subject,
		audience: row.audience as CampaignAudience,
		channel: row.channel,
		whatsappNumberId: row.whatsappNumberId,
		whatsappTemplate: row.whatsappTemplate,
		status: row.status,
		sendAt: isoOrNull(row.sendAt),
		sendAtLocal: local && `${local.date}T${local.time}`,
		timeZone,
		counts,
		createdBy: row.createdBy,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
		startedAt: isoOrNull(row.startedAt),
		finishedAt: isoOrNull(row.finishedAt),
	};
}

/** The campaign row; NotFound outside the workspace. */
export async function campaignRow(db: Database, workspaceId: string, id: string): Promise<CampaignRow> {
	const row = await db
		.select()
		.from(campaigns)
		.where(and(eq(campaigns.workspaceId, workspaceId), eq(campaigns.id, id)))
		.get();
	if (!row) throw new NotFound(`Campaign ${id} not found.`);
	return row;
}

/** The campaign as the API shows it, with its counts. */
export async function campaignOf(db: Database, row: CampaignRow, timeZone: string): Promise<CampaignView> {
	const counts = await countsOf(db, [row]);
	return campaignView(row, counts.get(row.id) as CampaignCounts, timeZone);
}

export async function getCampaign(db: Database, workspaceId: string, id: string, timeZone: string) {
	return campaignOf(db, await campaignRow(db, workspaceId, id), timeZone);
}

/** A page of the workspace's campaigns, newest first (two statements: the rows, then their counts). */
export async function listCampaigns(
	db: Database,
	workspaceId: string,
	filters: z.infer<typeof campaignFiltersSchema>,
	after: NewestFirstCursor | null,
	limit: number,
	timeZone: string,
) {
	const rows = await db
		.select()
		.from(campaigns)
		.where(
			and(
				eq(campaigns.workspaceId, workspaceId),
				filters.status === undefined ? undefined : eq(campaigns.status, filters.status),
				afterNewestFirst(campaigns.createdAt, campaigns.id, after),
			),
		)
		.orderBy(desc(campaigns.createdAt), desc(campaigns.id))
		.limit(limit + 1);
	const counts = await countsOf(db, rows.slice(0, limit));
	return pageOf(
		rows,
		limit,
		(row) => campaignView(row, counts.get(row.id) as CampaignCounts, timeZone),
		(row) => ({ at: row.createdAt, id: row.id }),
	);
}

/** A template liquidjs cannot parse (or one past the limits) is a 422 on its field. */
function checkCampaignTemplate(source: string, field: 'template' | 'subject' = 'template'): void {
	const problem = checkTemplate(source);
	if (problem) throw new Invalid(problem, { field: [field] });
}

/** A subject belongs to an e-mail campaign, which must have one; each is checked as a template. */
function checkSubject(channel: CampaignRow['channel'], subject: string | null | undefined): void {
	if (channel === 'email' && !subject) throw new Invalid('an e-mail campaign needs a subject', { field: ['subject'] });
	if (channel !== 'email' && subject != null) {
		throw new Invalid('only an e-mail campaign has a subject', { field: ['subject'] });
	}
	if (subject) checkCampaignTemplate(subject, 'subject');
}

/** The message belongs to a widget or e-mail campaign, which must have one (a WhatsApp campaign sends a template). */
function checkMessage(channel: CampaignRow['channel'], source: string | undefined): void {
	if (channel === 'whatsapp') {
		if (source !== undefined) {
			throw new Invalid('a WhatsApp campaign sends whatsappTemplate, not template', { field: ['template'] });
		}
		return;
	}
	if (source === undefined) throw new Invalid(`a ${channel} campaign needs a template`, { field: ['template'] });
	checkCampaignTemplate(source);
}

export async function createCampaign(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newCampaignSchema>,
	operatorId: string | null,
	timeZone: string,
	now = Date.now(),
): Promise<CampaignView> {
	checkMessage(input.channel, input.template);
	checkSubject(input.channel, input.subject);
	const whatsapp = {
		channel: input.channel,
		whatsappNumberId: input.whatsappNumberId ?? null,
		whatsappTemplate: input.whatsappTemplate ?? null,
	};
	await checkWhatsappCampaign(env, db, workspaceId, whatsapp, 'save', now);
	await checkAudience(db, workspaceId, input.audience);
	const row: CampaignRow = {
		id: newId('cmp', now),
		workspaceId,
		name: input.name,
		template: input.template ?? input.whatsappTemplate?.name ?? '',
		subject: input.subject ?? null,
		audience: input.audience,
		...whatsapp,
		status: 'draft',
		sendAt: null,
		targeted: 0,
		createdBy: operatorId,
		createdAt: now,
		updatedAt: now,
		startedAt: null,
		finishedAt: null,
	};
	await db.insert(campaigns).values(row);
	return campaignView(row, { ...EMPTY_COUNTS, targeted: 0 } as CampaignCounts, timeZone);
}

/** What a campaign's state allows: only a draft or a scheduled campaign changes or goes. */
function assertEditable(row: CampaignRow, doing: string): void {
	if (row.status !== 'draft' && row.status !== 'scheduled') {
		throw new Conflict(`Campaign ${row.id} is ${row.status}: only a draft or a scheduled campaign can be ${doing}.`);
	}
}

/** Changes a draft or a scheduled campaign; a 409 once it has started sending (or the state moved meanwhile). */
export async function updateCampaign(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof campaignChangesSchema>,
	timeZone: string,
	now = Date.now(),
): Promise<CampaignView> {
	const row = await campaignRow(db, workspaceId, id);
	assertEditable(row, 'changed');
	if (changes.template !== undefined) checkMessage(row.channel, changes.template);
	if (changes.subject !== undefined) checkSubject(row.channel, changes.subject);
	const whatsapp = {
		channel: row.channel,
		whatsappNumberId: changes.whatsappNumberId ?? row.whatsappNumberId,
		whatsappTemplate: changes.whatsappTemplate ?? row.whatsappTemplate,
	};
	if (changes.whatsappNumberId !== undefined || changes.whatsappTemplate !== undefined) {
		await checkWhatsappCampaign(env, db, workspaceId, whatsapp, 'save', now);
	}
	if (changes.audience !== undefined) await checkAudience(db, workspaceId, changes.audience);
	const named = changes.whatsappTemplate === undefined ? {} : { template: changes.whatsappTemplate.name };
	const updated = await db
		.update(campaigns)
		.set({ ...changes, ...named, updatedAt: now })
		.where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, row.status)))
		.returning();
	const after = updated[0];
	if (!after) throw new Conflict(`Campaign ${id} started sending meanwhile: it can no longer be changed.`);
	return campaignOf(db, after, timeZone);
}

/** Deletes a draft or a scheduled campaign (one that sent keeps its history: cancel it instead). */
export async function deleteCampaign(db: Database, workspaceId: string, id: string): Promise<void> {
	const row = await campaignRow(db, workspaceId, id);
	assertEditable(row, 'deleted');
	const deleted = await db
		.delete(campaigns)
		.where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, row.status)))
		.returning({ id: campaigns.id });
	if (deleted.length === 0)
		throw new Conflict(`Campaign ${id} started sending meanwhile: it can no longer be deleted.`);
}
