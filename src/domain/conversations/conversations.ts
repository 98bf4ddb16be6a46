import { z } from '@hono/zod-openapi';
import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { CONVERSATION_STATUSES, contacts, conversations } from '../../db/schema';
import { existsInWorkspace } from '../../db/scoped';
import { NotFound } from '../../lib/errors';
import { iso, isoOrNull } from '../../lib/ids';
import { schemaRules, when } from '../../lib/schema-rules';
import type { Actor } from '../../model/actor';
import { channelName } from '../../model/conversations';
import { changesOf, type DomainEvent, type EventPayload, newEvent } from '../../model/events';
import { MAX_OPERATOR_TEXT, messageText } from '../../model/messages';
import { contactReferenceSchema, contactSchema, contactView, originSchema } from '../crm/contacts';

export const STATUSES = CONVERSATION_STATUSES;

export const tagNameSchema = z.string().trim().min(1).max(64);

export const conversationSchema = z
	.object({
		id: z.string().openapi({ description: 'The conversation id.', example: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		workspaceId: z.string().openapi({ description: 'The workspace it belongs to.' }),
		contactId: z.string().openapi({ description: 'The contact on the other side.' }),
		channel: z.string().openapi({
			description: 'Where it started: `widget`, `api`, or a channel name an integration chose.',
			example: 'widget',
		}),
		subject: z.string().nullable().openapi({
			description:
				"What it is about, for a channel with subjects: an `email` conversation's first mail's subject; null otherwise.",
			example: null,
		}),
		status: z.enum(STATUSES).openapi({ description: '`open`, `pending` or `closed`.' }),
		assigneeId: z.string().nullable().openapi({ description: 'The operator it is assigned to; null when unassigned.' }),
		groupId: z.string().nullable().openapi({ description: 'The team group it is routed to; null for none.' }),
		tags: z.array(z.string()).openapi({ description: 'Its tags.' }),
		origin: originSchema.openapi({ description: 'The campaign origin of the visit it started in.' }),
		lastMessageSeq: z.number().int().openapi({ description: 'The `seq` of its last message; 0 before the first.' }),
		unreadByOperators: z
			.number()
			.int()
			.openapi({ description: 'Messages from the contact the team has not read yet.' }),
		unreadByContact: z.number().int().openapi({ description: 'Messages from the team the contact has not read yet.' }),
		createdAt: z.string().openapi({ description: 'When it started (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When its status, assignee, group or tags last changed (ISO 8601).' }),
		lastMessageAt: z
			.string()
			.nullable()
			.openapi({ description: 'When its last message was sent; null before the first.' }),
		lastActivityAt: z
			.string()
			.openapi({ description: 'Its last message or change, whichever is later: the inbox order.' }),
		waitingSince: z.string().nullable().openapi({
			description:
				"When the customer started waiting for a reply (its first message after the team's last); null while the team has the last word.",
		}),
		snoozedUntil: z.string().nullable().openapi({
			description:
				'Until when an operator snoozed it (it is `pending` meanwhile, and reopens then); null when not snoozed.',
		}),
	})
	.openapi('Conversation');

export const conversationWithContactSchema = conversationSchema
	.extend({ contact: contactSchema })
	.openapi('ConversationWithContact');

export type ConversationView = z.infer<typeof conversationSchema>;

/**
 * What a write answers a caller without `conversations:read` (a `messages:send`-only integration): ids,
 * status and times, no contact and no origin, so a write never reads what a GET would refuse. No contactId
 * either: its time-ordered id would tell whether an e-mail given to POST /v3/conversations was known.
 */
export const conversationReceiptSchema = conversationSchema
	.pick({
		id: true,
		workspaceId: true,
		channel: true,
		status: true,
		assigneeId: true,
		groupId: true,
		createdAt: true,
		updatedAt: true,
		lastActivityAt: true,
	})
	.openapi('ConversationReceipt');

/** A write's answer: the conversation with its contact for a reader, else the receipt. */
export const conversationWriteResultSchema = z
	.union([conversationWithContactSchema, conversationReceiptSchema])
	.openapi({
		description: 'With `conversations:read`, the conversation with its contact; without it, a ConversationReceipt.',
	});

// Tag names of a conversation, gathered inside the row's own query so a list page stays one statement. The
// outer column is written out qualified: drizzle renders a column of a one-table select unqualified (`"id"`),
// which inside this subquery would name `tags.id`.
export const tagNames = sql<string>`(SELECT json_group_array(t.name) FROM conversation_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.conversation_id = conversations.id)`;

const conversationColumns = { conversation: conversations, tagNames };

type ConversationRow = typeof conversations.$inferSelect;

export function conversationView(row: ConversationRow, tagJson: string | null): ConversationView {
	return {
		id: row.id,
		workspaceId: row.workspaceId,
		contactId: row.contactId,
		channel: row.channel,
		subject: row.subject,
		status: row.status,
		assigneeId: row.assigneeId,
		groupId: row.groupId,
		tags: (JSON.parse(tagJson ?? '[]') as string[]).sort(),
		origin: {
			utmSource: row.utmSource,
			utmMedium: row.utmMedium,
			utmCampaign: row.utmCampaign,
			utmContent: row.utmContent,
			utmTerm: row.utmTerm,
			gclid: row.gclid,
			fbclid: row.fbclid,
			landingUrl: row.landingUrl,
			referrer: row.referrer,
			ctwaClid: row.ctwaClid,
			adReferral: row.adReferral,
		},
		lastMessageSeq: row.lastMessageSeq,
		unreadByOperators: row.unreadByOperators,
		unreadByContact: row.unreadByContact,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
		lastMessageAt: isoOrNull(row.lastMessageAt),
		lastActivityAt: iso(row.lastActivityAt),
		waitingSince: isoOrNull(row.waitingSince),
		snoozedUntil: isoOrNull(row.snoozedUntil),
	};
}

/** A query parameter `true` or `false`, as a boolean. */
export const booleanParam = z.enum(['true', 'false']).transform((v) => v === 'true');
const id = z.string().min(1).max(64);

export const newConversationSchema = z
	.strictObject({
		contact: contactReferenceSchema.openapi({ description: 'Who the conversation is with.' }),
		channel: channelName.default('api').openapi({ description: 'A lower-case channel name, for reporting.' }),
		assigneeId: id.nullable().optional().openapi({ description: 'Assign it to this operator at once.' }),
		groupId: id.nullable().optional().openapi({ description: 'Route it to this group at once.' }),
		tags: z.array(tagNameSchema).max(20).optional().openapi({ description: 'Tags to start with.' }),
		message: z
			.strictObject({
				text: messageText(MAX_OPERATOR_TEXT).openapi({ description: 'The first message (trimmed).' }),
				author: z
					.enum(['contact', 'operator'])
					.default('operator')
					.openapi({ description: 'Who the first message is from.' }),
			})
			.optional()
			.openapi({ description: "A first message: from the token's operator (default) or from the contact." }),
	})
	.openapi('NewConversation');

export type NewConversation = z.infer<typeof newConversationSchema>;

export const conversationChangesSchema = z
	.strictObject({
		status: z.enum(STATUSES).optional().openapi({ description: 'The new status.' }),
		assigneeId: id.nullable().optional().openapi({ description: 'The operator to assign it to; null to unassign.' }),
		groupId: id.nullable().optional().openapi({ description: 'The group to route it to; null for none.' }),
		tags: z.array(tagNameSchema).max(20).optional().openapi({ description: 'Replaces the tag set.' }),
		snoozedUntil: z.iso
			.datetime({ offset: true })
			.transform((at) => Date.parse(at))
			.nullable()
			.optional()
			.openapi({
				description:
					'Snooze until this instant (within a year): the conversation becomes `pending` and reopens itself then. null ends a snooze and leaves the status as it is; any status given ends it too.',
				example: '2026-11-22T09:00:00Z',
			}),
	})
	.refine((b) => Object.keys(b).length > 0, 'give at least one of status, assigneeId, groupId, tags, snoozedUntil')
	.refine((b) => typeof b.snoozedUntil !== 'number' || b.status === undefined || b.status === 'pending', {
		message: 'a snoozed conversation is pending: give status pending or leave it out',
		path: ['status'],
	})
	// The refinements above are invisible to the generator: the document states them for clients that validate.
	.openapi(
		'ConversationChanges',
		schemaRules({
			minProperties: 1,
			...when(
				{ required: ['snoozedUntil', 'status'], properties: { snoozedUntil: { type: 'string' }, status: {} } },
				{ required: ['status'], properties: { status: { const: 'pending' } } },
			),
		}),
	);

export type ConversationChanges = z.infer<typeof conversationChangesSchema>;

/** A conversation with its contact embedded, in one statement; NotFound outside the workspace. */
/**
 * The id of the contact's conversation with the latest activity: only one not closed with `open`, only on one
 * of `channels` when given; null when there is none. What a deal-stage bot and a scenario's Find
 * Conversation look for.
 */
export async function latestConversation(
	db: Database,
	workspaceId: string,
	contactId: string,
	options: { channels?: readonly string[] | null; open: boolean },
): Promise<string | null> {
	const row = await db
		.select({ id: conversations.id })
		.from(conversations)
		.where(
			and(
				eq(conversations.workspaceId, workspaceId),
				eq(conversations.contactId, contactId),
				options.open ? ne(conversations.status, 'closed') : undefined,
				options.channels ? inArray(conversations.channel, [...options.channels]) : undefined,
			),
		)
		.orderBy(desc(conversations.lastActivityAt), desc(conversations.id))
		.get();
	return row?.id ?? null;
}

export async function getConversation(db: Database, workspaceId: string, id: string) {
	const row = await db
		.select({ ...conversationColumns, contact: contacts })
		.from(conversations)
		.innerJoin(contacts, eq(contacts.id, conversations.contactId))
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
		.get();
	if (!row) throw new NotFound(`Conversation ${id} not found.`);
	return { ...conversationView(row.conversation, row.tagNames), contact: contactView(row.contact) };
}

/**
 * The conversation as a write answers it: `getConversation` when the caller may read conversations, else
 * the receipt (see conversationReceiptSchema). NotFound outside the workspace.
 */
export async function conversationForWriter(db: Database, workspaceId: string, id: string, canRead: boolean) {
	if (canRead) return getConversation(db, workspaceId, id);
	const row = await db
		.select()
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
		.get();
	if (!row) throw new NotFound(`Conversation ${id} not found.`);
	// The one view, cut to the receipt's fields by its schema (which drops the others).
	return conversationReceiptSchema.parse(conversationView(row, null));
}

/** Throws NotFound unless the conversation belongs to the workspace. */
export async function assertConversationInWorkspace(db: Database, workspaceId: string, id: string) {
	if (!(await existsInWorkspace(db, conversations, workspaceId, id))) {
		throw new NotFound(`Conversation ${id} not found.`);
	}
}

/** The conversation as domain events carry it. */
export function conversationSummary(row: {
	id: string;
	contactId: string;
	channel: string;
	status: (typeof STATUSES)[number];
	assigneeId: string | null;
	groupId: string | null;
}) {
	const { id, contactId, channel, status, assigneeId, groupId } = row;
	return { id, contactId, channel, status, assigneeId, groupId };
}

type SummaryRow = Parameters<typeof conversationSummary>[0];

/**
 * One `conversation.updated` per conversation a bulk change moved (a member deleted, a group deleted,
 * contacts merged): `field` from each row's value to `to`.
 */
export function conversationsMoved<F extends 'assigneeId' | 'groupId' | 'contactId'>(
	workspaceId: string,
	actor: Actor,
	rows: readonly SummaryRow[],
	field: F,
	to: SummaryRow[F],
	now: number,
): DomainEvent[] {
	return rows.map((row) =>
		newEvent(
			'conversation.updated',
			workspaceId,
			actor,
			{
				conversation: conversationSummary({ ...row, [field]: to }),
				...changesOf({ [field]: { from: row[field], to } } as Record<F, { from: SummaryRow[F]; to: SummaryRow[F] }>),
			} as EventPayload<'conversation.updated'>,
			now,
		),
	);
}
