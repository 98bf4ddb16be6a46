/**
 * The inbox list: its filters, and one page of conversations in one statement, optionally with what an inbox
 * row shows beside the conversation (the contact's name, the last message's first words), so a console never
 * asks once per row.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq, gt, gte, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Database } from '../../db/client';
import { CONVERSATION_STATUSES, conversations } from '../../db/schema';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { AUTHOR_KINDS } from '../../model/messages';
import { booleanParam, conversationSchema, conversationView, tagNameSchema, tagNames } from './conversations';

const id = z.string().min(1).max(64);

/** What a list row may carry besides the conversation, asked for with `include`. */
const INCLUDES = ['contact', 'lastMessage'] as const;
type Include = (typeof INCLUDES)[number];

/** Longest preview of the last message a list row carries. */
const PREVIEW_LENGTH = 140;

/** Filters of the inbox list. Strict: a misspelt filter is refused rather than silently ignored. */
export const conversationFiltersSchema = z.strictObject({
	status: z.enum(CONVERSATION_STATUSES).optional().openapi({ description: 'Only conversations in this status.' }),
	assigneeId: id.optional().openapi({ description: 'An operator id, or `none` for unassigned.' }),
	groupId: id.optional().openapi({ description: 'A group id, or `none` for conversations routed to no group.' }),
	contactId: id.optional().openapi({ description: "Only this contact's conversations." }),
	channel: z.string().max(32).optional().openapi({ description: 'Only this channel (`widget`, `api`…).' }),
	tag: tagNameSchema.optional().openapi({ description: 'Only conversations carrying this tag.' }),
	utmSource: z.string().max(255).optional().openapi({ description: 'Only this campaign source (utm_source).' }),
	utmMedium: z.string().max(255).optional().openapi({ description: 'Only this campaign medium (utm_medium).' }),
	utmCampaign: z.string().max(255).optional().openapi({ description: 'Only this campaign (utm_campaign).' }),
	hasGclid: booleanParam
		.optional()
		.openapi({ description: 'Only conversations that came (or did not come) from a search-ad click.' }),
	hasFbclid: booleanParam
		.optional()
		.openapi({ description: 'Only conversations that came (or did not come) from a social-ad click.' }),
	updatedSince: z.iso
		.datetime({ offset: true })
		.transform((at) => Date.parse(at))
		.optional()
		.openapi({ description: 'Only conversations updated at or after this instant.', example: '2026-11-01T00:00:00Z' }),
});

export type ConversationFilters = z.infer<typeof conversationFiltersSchema>;

/** `include=contact,lastMessage`: a comma-separated list, each name once; unknown names are refused. */
export const includeParam = z
	.string()
	.max(64)
	.transform((value, ctx) => {
		const names = value.split(',').map((name) => name.trim());
		const unknown = names.filter((name) => !(INCLUDES as readonly string[]).includes(name));
		if (unknown.length > 0) {
			ctx.addIssue({
				code: 'custom',
				message: `unknown include: ${unknown.join(', ')} (known: ${INCLUDES.join(', ')})`,
			});
			return z.NEVER;
		}
		return new Set(names as Include[]);
	})
	.optional()
	.openapi({
		description:
			'What each row carries besides the conversation, comma-separated: `contact` (its name, e-mail and phone), `lastMessage` (who wrote it and its first 140 characters).',
		example: 'contact,lastMessage',
	});

export const conversationRowSchema = conversationSchema
	.extend({
		contact: z
			.object({
				id: z.string().openapi({ description: 'The contact id.' }),
				name: z.string().nullable().openapi({ description: 'Full name; null when unknown.' }),
				email: z.string().nullable().openapi({ description: 'E-mail address; null when unknown.' }),
				phone: z.string().nullable().openapi({ description: 'Phone number; null when unknown.' }),
			})
			.optional()
			.openapi({ description: 'With `include=contact`: who the conversation is with.' }),
		lastMessage: z
			.object({
				seq: z.number().int().openapi({ description: 'Its place in the conversation.' }),
				authorKind: z.enum(AUTHOR_KINDS).openapi({ description: 'Who wrote it.' }),
				authorId: z.string().nullable().openapi({
					description: "The operator's, bot's or contact's id; null for the system. Names it as the thread does.",
				}),
				private: z.boolean().openapi({ description: 'A private note of the team, which the visitor never sees.' }),
				text: z.string().openapi({ description: `Its first ${PREVIEW_LENGTH} characters.` }),
			})
			.nullable()
			.optional()
			.openapi({ description: 'With `include=lastMessage`: the last message; null before the first.' }),
	})
	.openapi('ConversationRow');

function presence(column: AnySQLiteColumn, wanted: boolean | undefined): SQL | undefined {
	if (wanted === undefined) return undefined;
	return wanted ? isNotNull(column) : isNull(column);
}

// The contact by primary key, in the conversation's own workspace (scoped like every other read).
const contactJson = sql<
	string | null
>`(SELECT json_object('name', ct.name, 'email', ct.email, 'phone', ct.phone) FROM contacts ct WHERE ct.id = conversations.contact_id AND ct.workspace_id = conversations.workspace_id)`;
const EMPTY_CONTACT = '{"name":null,"email":null,"phone":null}';
type ContactNames = { name: string | null; email: string | null; phone: string | null };

// The last message by its unique (conversation_id, seq) index: one lookup per row of the page.
const lastMessageJson = sql<
	string | null
>`(SELECT json_object('seq', m.seq, 'authorKind', m.author_kind, 'authorId', m.author_id, 'private', json(CASE WHEN m.private THEN 'true' ELSE 'false' END), 'text', substr(m.body, 1, ${PREVIEW_LENGTH})) FROM messages m WHERE m.conversation_id = conversations.id AND m.workspace_id = conversations.workspace_id AND m.seq = conversations.last_message_seq)`;

/** The inbox's orders: most recent activity first, or the customer waiting longest first. */
export const CONVERSATION_SORTS = ['activity', 'waiting'] as const;
export type ConversationSort = (typeof CONVERSATION_SORTS)[number];

export const sortParam = z.enum(CONVERSATION_SORTS).default('activity').openapi({
	description:
		'`activity`: the latest message or change first. `waiting`: only conversations whose customer waits for a reply (`waitingSince` set), the longest waiting first.',
});

/** A position in the waiting order: when the customer started waiting, then id, both ascending. */
export const waitingCursor = z.object({ waiting: z.number().int(), id: z.string() });
type WaitingCursor = z.infer<typeof waitingCursor>;

/** The filters of the inbox as one condition on `conversations`, in the caller's workspace. */
export function filterConditions(workspaceId: string, filters: ConversationFilters): SQL | undefined {
	const c = conversations;
	return and(
		eq(c.workspaceId, workspaceId),
		filters.status === undefined ? undefined : eq(c.status, filters.status),
		filters.assigneeId === undefined
			? undefined
			: filters.assigneeId === 'none'
				? isNull(c.assigneeId)
				: eq(c.assigneeId, filters.assigneeId),
		filters.groupId === undefined
			? undefined
			: filters.groupId === 'none'
				? isNull(c.groupId)
				: eq(c.groupId, filters.groupId),
		filters.contactId === undefined ? undefined : eq(c.contactId, filters.contactId),
		filters.channel === undefined ? undefined : eq(c.channel, filters.channel),
		filters.tag === undefined
			? undefined
			: sql`EXISTS (SELECT 1 FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.conversation_id = ${c.id} AND t.workspace_id = ${workspaceId} AND t.name = ${filters.tag})`,
		filters.utmSource === undefined ? undefined : eq(c.utmSource, filters.utmSource),
		filters.utmMedium === undefined ? undefined : eq(c.utmMedium, filters.utmMedium),
		filters.utmCampaign === undefined ? undefined : eq(c.utmCampaign, filters.utmCampaign),
		presence(c.gclid, filters.hasGclid),
		presence(c.fbclid, filters.hasFbclid),
		filters.updatedSince === undefined ? undefined : gte(c.updatedAt, filters.updatedSince),
	);
}

/** What a list row carries besides the conversation, as columns of a select on `conversations`. */
export function rowColumns(include: ReadonlySet<Include>) {
	return {
		conversation: conversations,
		tagNames,
		contact: include.has('contact') ? contactJson : sql<null>`NULL`,
		lastMessage: include.has('lastMessage') ? lastMessageJson : sql<null>`NULL`,
	};
}

type RowColumns = {
	conversation: typeof conversations.$inferSelect;
	tagNames: string;
	contact: string | null;
	lastMessage: string | null;
};

/** A list row as the API shows it, from the columns of `rowColumns`. */
export function rowView(r: RowColumns, include: ReadonlySet<Include>): ConversationRowView {
	return {
		...conversationView(r.conversation, r.tagNames),
		...(include.has('contact')
			? { contact: { id: r.conversation.contactId, ...(JSON.parse(r.contact ?? EMPTY_CONTACT) as ContactNames) } }
			: {}),
		...(include.has('lastMessage')
			? { lastMessage: r.lastMessage ? (JSON.parse(r.lastMessage) as ConversationRowView['lastMessage']) : null }
			: {}),
	};
}

/**
 * One page of the inbox, most recent activity first, in a single statement. Keyset pagination on
 * (last_activity_at, id) walks the `conversations_activity` index, so the cost of a page does not grow
 * with the table, and rows inserted while a client pages cannot shift or repeat what it sees. The contact
 * is joined by primary key and the preview read by its unique index, so `include` adds no statement.
 */
export async function listConversations(
	db: Database,
	workspaceId: string,
	filters: ConversationFilters,
	after: NewestFirstCursor | null,
	limit: number,
	include: ReadonlySet<Include> = new Set(),
) {
	const c = conversations;
	const rows = await db
		.select(rowColumns(include))
		.from(c)
		.where(and(filterConditions(workspaceId, filters), afterNewestFirst(c.lastActivityAt, c.id, after)))
		.orderBy(desc(c.lastActivityAt), desc(c.id))
		.limit(limit + 1);
	return pageOf(
		rows,
		limit,
		(r) => rowView(r, include),
		(r) => ({ at: r.conversation.lastActivityAt, id: r.conversation.id }),
	);
}

/**
 * One page of the conversations whose customer waits for a reply, the longest waiting first: keyset on
 * (waiting_since, id), along `conversations_status_waiting` (a status view) or `conversations_waiting`.
 */
export async function listWaiting(
	db: Database,
	workspaceId: string,
	filters: ConversationFilters,
	after: WaitingCursor | null,
	limit: number,
	include: ReadonlySet<Include> = new Set(),
) {
	const c = conversations;
	const rows = await db
		.select(rowColumns(include))
		.from(c)
		.where(
			and(
				filterConditions(workspaceId, filters),
				isNotNull(c.waitingSince),
				after === null
					? undefined
					: or(gt(c.waitingSince, after.waiting), and(eq(c.waitingSince, after.waiting), gt(c.id, after.id))),
			),
		)
		.orderBy(asc(c.waitingSince), asc(c.id))
		.limit(limit + 1);
	return pageOf(
		rows,
		limit,
		(r) => rowView(r, include),
		(r) => ({ waiting: r.conversation.waitingSince ?? 0, id: r.conversation.id }),
	);
}

export type ConversationRowView = z.infer<typeof conversationRowSchema>;
export type { Include };
