/**
 * Bulk messaging campaigns: a Liquid message, an audience (a saved contact filter or a list of contacts), a
 * schedule and a channel. This module is the resource (create, read, change, delete, preview); sending,
 * cancelling and replies are in campaign-sending.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { campaignRecipients, campaigns, contacts } from '../../db/schema';
import { assertAllInWorkspace } from '../../db/scoped';
import { checkTemplate, localDateTime } from '../../engines/templates';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { Conflict, Invalid, NotFound } from '../../lib/errors';
import { iso, isoOrNull, newId } from '../../lib/ids';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, RECIPIENT_STATUSES, type RecipientStatus } from '../../model/campaigns';
import { customFieldKey } from '../../model/custom-fields';
import { tagNameSchema } from '../conversations/conversations';
import { type ContactCriteria, contactsMatching, touchSchema } from '../crm/contact-filters';

/** Contacts an explicit audience may list. */
export const MAX_LISTED_CONTACTS = 5000;

const filterAudience = z
	.strictObject({
		kind: z.literal('filter').openapi({ description: 'A saved contact filter.' }),
		tags: z
			.array(tagNameSchema)
			.max(10)
			.optional()
			.openapi({ description: 'Only contacts carrying every one of these tags.', example: ['vip'] }),
		customFields: z
			.record(customFieldKey, z.union([z.string(), z.number(), z.boolean()]))
			.optional()
			.openapi({
				description: 'Only contacts whose custom fields hold these values (each read as its definition reads it).',
			}),
		utmSource: z.string().min(1).max(255).optional().openapi({ description: 'Only contacts from this utm_source.' }),
		utmMedium: z.string().min(1).max(255).optional().openapi({ description: 'Only contacts from this utm_medium.' }),
		utmCampaign: z
			.string()
			.min(1)
			.max(255)
			.optional()
			.openapi({ description: 'Only contacts from this utm_campaign.' }),
		hasGclid: z
			.boolean()
			.optional()
			.openapi({ description: 'Only contacts that came (true) or did not come (false) from a search-ad click.' }),
		hasFbclid: z
			.boolean()
			.optional()
			.openapi({ description: 'Only contacts that came (true) or did not come (false) from a social-ad click.' }),
		touch: touchSchema
			.optional()
			.openapi({ description: 'Which origin the origin filters read: `first`, `last` or `any` (the default).' }),
		createdSince: z.iso
			.datetime({ offset: true })
			.optional()
			.openapi({ description: 'Only contacts created at or after this instant.', example: '2026-01-01T00:00:00Z' }),
	})
	.openapi('CampaignFilterAudience', {
		description: 'The contacts the filters select when sending starts (the filters of `GET /v3/contacts`).',
	});

const listAudience = z
	.strictObject({
		kind: z.literal('contacts').openapi({ description: 'An explicit list of contacts.' }),
		contactIds: z
			.array(z.string().min(1).max(64))
			.min(1)
			.max(MAX_LISTED_CONTACTS)
			.refine((ids) => new Set(ids).size === ids.length, 'lists a contact twice')
			.openapi({ description: `These contacts (at most ${MAX_LISTED_CONTACTS}).` }),
	})
	.openapi('CampaignListAudience');

export const campaignAudienceSchema = z
	.discriminatedUnion('kind', [filterAudience, listAudience])
	.openapi('CampaignAudience', {
		description: 'Who it goes to. Contacts that opted out are always left out, whatever the audience says.',
	});
export type CampaignAudience = z.infer<typeof campaignAudienceSchema>;

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
				'The message, a Liquid template (`{{ contact.name }}` and the rest): on e-mail, the body of the mail.',
		}),
		subject: z.string().nullable().openapi({
			description: "An e-mail campaign's subject, a Liquid template (one line once rendered); null on the widget.",
		}),
		audience: campaignAudienceSchema,
		channel: z.enum(CAMPAIGN_CHANNELS).openapi({
			description:
				"Where it goes. `widget`: into the contact's latest open widget conversation (or a new one), live and with the unread badge on the next visit. `email`: a mail to the contact's address with an unsubscribe link; contacts with no address or a failing one are skipped.",
		}),
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

const name = z.string().trim().min(1).max(200);
const template = z.string().min(1).max(4000);
const subject = z.string().min(1).max(500);

export const newCampaignSchema = z
	.strictObject({
		name: name.openapi({ description: 'Its name, for the team.', example: 'Black Friday' }),
		template: template.openapi({
			description: 'The message, a Liquid template (`{{ contact.name }}`, `{{ contact.custom_fields.plan }}`…).',
			example: 'Hi {{ contact.name }}, our sale starts today!',
		}),
		subject: subject.optional().openapi({
			description: 'Required on e-mail, refused on the widget: the subject, a Liquid template.',
			example: 'Our sale, {{ contact.name }}',
		}),
		audience: campaignAudienceSchema,
		channel: z.enum(CAMPAIGN_CHANNELS).default('widget'),
	})
	.openapi('NewCampaign');

export const campaignChangesSchema = z
	.strictObject({
		name: name.optional().openapi({ description: 'Its name, for the team.' }),
		template: template.optional().openapi({ description: 'The message, a Liquid template.' }),
		subject: subject.optional().openapi({ description: "An e-mail campaign's subject, a Liquid template." }),
		audience: campaignAudienceSchema.optional(),
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

/** Checks what only D1 can tell of an audience: listed contacts exist, filter values fit their fields. */
async function checkAudience(db: Database, workspaceId: string, audience: CampaignAudience): Promise<void> {
	if (audience.kind === 'contacts') {
		await assertAllInWorkspace(db, contacts, workspaceId, audience.contactIds, 'audience.contactIds', 'contact');
	} else {
		await audienceCondition(db, workspaceId, audience);
	}
}

/** The contacts a filter audience selects, as a condition on `contacts` (its custom values checked). */
export function audienceCondition(db: Database, workspaceId: string, audience: z.infer<typeof filterAudience>) {
	const { kind: _, createdSince, touch, ...rest } = audience;
	const criteria: ContactCriteria = {
		...rest,
		touch: touch ?? 'any',
		createdSince: createdSince === undefined ? undefined : Date.parse(createdSince),
	};
	return contactsMatching(db, workspaceId, criteria, {
		source: 'json',
		customFieldsAt: ['audience', 'customFields'],
		keyInPath: true,
	});
}

export async function createCampaign(
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newCampaignSchema>,
	operatorId: string | null,
	timeZone: string,
	now = Date.now(),
): Promise<CampaignView> {
	checkCampaignTemplate(input.template);
	checkSubject(input.channel, input.subject);
	await checkAudience(db, workspaceId, input.audience);
	const row: CampaignRow = {
		id: newId('cmp', now),
		workspaceId,
		name: input.name,
		template: input.template,
		subject: input.subject ?? null,
		audience: input.audience,
		channel: input.channel,
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
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof campaignChangesSchema>,
	timeZone: string,
	now = Date.now(),
): Promise<CampaignView> {
	const row = await campaignRow(db, workspaceId, id);
	assertEditable(row, 'changed');
	if (changes.template !== undefined) checkCampaignTemplate(changes.template);
	if (changes.subject !== undefined) checkSubject(row.channel, changes.subject);
	if (changes.audience !== undefined) await checkAudience(db, workspaceId, changes.audience);
	const updated = await db
		.update(campaigns)
		.set({ ...changes, updatedAt: now })
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
