/**
 * Canned replies: the team's saved answers, which an operator inserts in the composer by typing `/` and the
 * reply's shortcut. Every operator who reads conversations reads them all; whoever may send messages writes
 * one; only its author or an admin changes or deletes it. The text is a Liquid template, checked when saved
 * (as bots' and campaigns' are) and rendered for one conversation's contact (`renderCannedReply`).
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, or, type SQL, sql } from 'drizzle-orm';
import { batchGuard, brokeGuard, type Database, violatesUnique } from '../../db/client';
import { cannedReplies, contacts, conversations, operators } from '../../db/schema';
import { checkTemplate, renderTemplate, TemplateError } from '../../engines/templates';
import { commit, IF_CHANGED, release } from '../../events/commit';
import { pageOf } from '../../lib/cursor';
import { Conflict, Forbidden, Invalid, NotFound } from '../../lib/errors';
import { iso, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, newEvent } from '../../model/events';
import { MAX_OPERATOR_TEXT } from '../../model/messages';
import { workspaceTimeZone } from '../widget/settings';

/**
 * Replies a workspace keeps at most: a team's whole library of answers fits, and the composer's list (read
 * in pages of 100) stays a few pages long.
 */
export const MAX_CANNED_REPLIES = 500;

export const cannedReplySchema = z
	.object({
		id: z.string().openapi({ description: 'The reply id.', example: 'cr_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		shortcut: z.string().openapi({ description: 'What the composer takes after `/`, unique in the workspace.' }),
		title: z.string().nullable().openapi({ description: 'A name to show in the list; null for none.' }),
		text: z.string().openapi({ description: 'The reply: a Liquid template (`{{ contact.name }}`).' }),
		authorId: z.string().openapi({ description: 'The operator who wrote it (it and admins may change it).' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When it last changed (ISO 8601).' }),
	})
	.openapi('CannedReply');

export type CannedReplyView = z.infer<typeof cannedReplySchema>;

const shortcut = z
	.string()
	.regex(/^[a-z0-9_-]{1,32}$/, 'lower-case letters, digits, - and _, 1 to 32 characters')
	.openapi({ description: 'The word typed after `/` in the composer: `a-z`, `0-9`, `-`, `_`, 1 to 32.' });
const title = z.string().trim().min(1).max(100).openapi({ description: 'A name for the list (1 to 100).' });

export const newCannedReplySchema = z
	.strictObject({
		shortcut,
		title: title.optional(),
		text: z.string().trim().min(1).max(MAX_OPERATOR_TEXT).openapi({
			description:
				'The reply (trimmed, at most 10,000 characters): Liquid, e.g. `Hi {{ contact.name | default: "there" }}`; a template that does not parse is a 422.',
		}),
	})
	.openapi('NewCannedReply');

export const cannedReplyChangesSchema = newCannedReplySchema
	.partial()
	.extend({ title: title.nullable().optional().openapi({ description: 'null clears it.' }) })
	.refine((b) => Object.keys(b).length > 0, 'give at least one of shortcut, title, text')
	.openapi('CannedReplyChanges', { minProperties: 1 });

export const cannedReplyFiltersSchema = z.strictObject({
	q: z.string().trim().min(1).max(100).optional().openapi({
		description:
			'Only replies whose shortcut starts with it, or whose title or text contains it (letters in any case): what the composer typed after `/`.',
	}),
});

/** Position in the list: the last shortcut seen (unique in the workspace). */
export const cannedReplyCursor = z.object({ shortcut: z.string() });

/** Who acts on a reply: its author, or an admin, may change and delete it. */
export interface CannedReplyCaller {
	actor: Actor;
	operatorId: string;
	admin: boolean;
}

type Row = typeof cannedReplies.$inferSelect;

function view(row: Row): CannedReplyView {
	return {
		id: row.id,
		shortcut: row.shortcut,
		title: row.title,
		text: row.text,
		authorId: row.authorId,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

function summary(row: Row) {
	return { id: row.id, shortcut: row.shortcut, title: row.title, authorId: row.authorId };
}

const replyIn = (workspaceId: string, id: string) =>
	and(eq(cannedReplies.workspaceId, workspaceId), eq(cannedReplies.id, id));

async function replyRow(db: Database, workspaceId: string, id: string): Promise<Row> {
	const row = await db.select().from(cannedReplies).where(replyIn(workspaceId, id)).get();
	if (!row) throw new NotFound(`Canned reply ${id} not found.`);
	return row;
}

export async function getCannedReply(db: Database, workspaceId: string, id: string): Promise<CannedReplyView> {
	return view(await replyRow(db, workspaceId, id));
}

/** One page of the workspace's replies in shortcut order, in one statement. */
export async function listCannedReplies(
	db: Database,
	workspaceId: string,
	filters: z.infer<typeof cannedReplyFiltersSchema>,
	after: z.infer<typeof cannedReplyCursor> | null,
	limit: number,
) {
	const t = cannedReplies;
	// instr over lower(): no LIKE, so a `%` or `_` typed is searched for as itself.
	const q = filters.q?.toLowerCase();
	const matches: SQL | undefined =
		q === undefined
			? undefined
			: or(
					sql`substr(${t.shortcut}, 1, ${q.length}) = ${q}`,
					sql`instr(lower(coalesce(${t.title}, '')), ${q}) > 0`,
					sql`instr(lower(${t.text}), ${q}) > 0`,
				);
	const rows = await db
		.select()
		.from(t)
		.where(and(eq(t.workspaceId, workspaceId), matches, after === null ? undefined : gt(t.shortcut, after.shortcut)))
		.orderBy(asc(t.shortcut))
		.limit(limit + 1);
	return pageOf(rows, limit, view, (row) => ({ shortcut: row.shortcut }));
}

/** A template liquidjs cannot parse (or past its limits) is refused when saved, naming `text`. */
function assertTemplate(text: string | undefined): void {
	if (text === undefined) return;
	const problem = checkTemplate(text);
	if (problem) throw new Invalid(`not a valid template: ${problem}`, { field: ['text'] });
}

function shortcutTaken(value: string) {
	return (error: unknown): never => {
		if (violatesUnique(error, 'canned_replies.')) {
			throw new Conflict(`The workspace already has a canned reply with the shortcut /${value}.`, { cause: error });
		}
		if (brokeGuard(error)) throw new Conflict('The canned reply changed while this update was applied; retry.');
		throw error;
	};
}

function assertManages(caller: CannedReplyCaller, row: Row): void {
	if (caller.admin || row.authorId === caller.operatorId) return;
	throw new Forbidden('Only the author of this canned reply or an admin may change or delete it.');
}

/**
 * Creates a reply by the caller, with `canned_reply.created`. A shortcut taken is a 409, and so is a reply past
 * the workspace's MAX_CANNED_REPLIES: the insert counts them itself, so concurrent creates cannot pass it.
 */
export async function createCannedReply(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newCannedReplySchema>,
	caller: CannedReplyCaller,
	now = Date.now(),
): Promise<CannedReplyView> {
	assertTemplate(input.text);
	const row: Row = {
		id: newId('cr', now),
		workspaceId,
		shortcut: input.shortcut,
		title: input.title ?? null,
		text: input.text,
		authorId: caller.operatorId,
		createdAt: now,
		updatedAt: now,
	};
	const insert = sql`INSERT INTO canned_replies (id, workspace_id, shortcut, title, text, author_id, created_at, updated_at)
		SELECT ${row.id}, ${workspaceId}, ${row.shortcut}, ${row.title}, ${row.text}, ${row.authorId}, ${now}, ${now}
		WHERE (SELECT count(*) FROM canned_replies WHERE workspace_id = ${workspaceId}) < ${MAX_CANNED_REPLIES}`;
	const event = newEvent('canned_reply.created', workspaceId, caller.actor, { cannedReply: summary(row) }, now);
	const committed = await commit(
		db,
		{ statements: [insert], events: [{ event, onlyIf: IF_CHANGED }] },
		shortcutTaken(row.shortcut),
	);
	if ((committed.results[0]?.meta.changes ?? 0) === 0) {
		throw new Conflict(`A workspace keeps ${MAX_CANNED_REPLIES} canned replies at most: delete one first.`);
	}
	await release(env, committed.events);
	return view(row);
}

/**
 * Changes a reply its author or an admin manages, with `canned_reply.updated` naming each field from and to;
 * nothing when nothing moves. The write applies only while the reply is as read (409 otherwise).
 */
export async function updateCannedReply(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof cannedReplyChangesSchema>,
	caller: CannedReplyCaller,
	now = Date.now(),
): Promise<CannedReplyView> {
	const current = await replyRow(db, workspaceId, id);
	assertManages(caller, current);
	assertTemplate(changes.text);
	const moved: Partial<Record<'shortcut' | 'title' | 'text', { from: string | null; to: string | null }>> = {};
	const set: Partial<Row> = {};
	for (const key of ['shortcut', 'title', 'text'] as const) {
		const to = changes[key];
		if (to !== undefined && to !== current[key]) {
			moved[key] = { from: current[key], to };
			Object.assign(set, { [key]: to });
		}
	}
	if (Object.keys(moved).length === 0) return view(current);
	const after: Row = { ...current, ...set, updatedAt: Math.max(now, current.updatedAt + 1) };
	const statements = [
		db
			.update(cannedReplies)
			.set({ ...set, updatedAt: after.updatedAt })
			.where(and(replyIn(workspaceId, id), eq(cannedReplies.updatedAt, current.updatedAt))),
		batchGuard(sql`changes() = 1`),
	];
	const payload = { cannedReply: summary(after), ...changesOf(moved) };
	const event = newEvent('canned_reply.updated', workspaceId, caller.actor, payload, now);
	const committed = await commit(db, { statements, events: [event] }, shortcutTaken(after.shortcut));
	await release(env, committed.events);
	return view(after);
}

/** Deletes a reply its author or an admin manages, with `canned_reply.deleted`. */
export async function deleteCannedReply(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	caller: CannedReplyCaller,
	now = Date.now(),
): Promise<void> {
	const current = await replyRow(db, workspaceId, id);
	assertManages(caller, current);
	const event = newEvent('canned_reply.deleted', workspaceId, caller.actor, { cannedReply: summary(current) }, now);
	const remove = db.delete(cannedReplies).where(replyIn(workspaceId, id));
	const committed = await commit(db, { statements: [remove], events: [{ event, onlyIf: IF_CHANGED }] });
	await release(env, committed.events);
}

export const renderRequestSchema = z
	.strictObject({
		conversationId: z
			.string()
			.min(1)
			.max(64)
			.openapi({ description: 'The conversation whose contact the reply is rendered for.' }),
	})
	.openapi('CannedReplyRenderRequest');

export const renderedReplySchema = z
	.object({ text: z.string().openapi({ description: 'The reply as it reads for that conversation, trimmed.' }) })
	.openapi('RenderedCannedReply');

/**
 * A reply's text for one conversation, as the composer inserts it: `contact` is the conversation's contact,
 * `conversation` the conversation, `agent` the operator asking (who sends it), dates in the workspace's time
 * zone. A conversation not in the workspace is a 422 on `conversationId`; a template that fails to render (a
 * limit, a bad value) a 422 on `text`.
 */
export async function renderCannedReply(
	db: Database,
	workspaceId: string,
	id: string,
	conversationId: string,
	operatorId: string,
	now = Date.now(),
): Promise<z.infer<typeof renderedReplySchema>> {
	const [reply, scene, timeZone] = await Promise.all([
		replyRow(db, workspaceId, id),
		db
			.select({ contact: contacts, channel: conversations.channel, agentName: operators.name })
			.from(conversations)
			.innerJoin(contacts, and(eq(contacts.id, conversations.contactId), eq(contacts.workspaceId, workspaceId)))
			.leftJoin(operators, and(eq(operators.id, operatorId), eq(operators.workspaceId, workspaceId)))
			.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, conversationId)))
			.get(),
		workspaceTimeZone(db, workspaceId),
	]);
	if (!scene) throw new Invalid(`no conversation ${conversationId} in this workspace`, { field: ['conversationId'] });
	try {
		const text = await renderTemplate(
			reply.text,
			{
				contact: scene.contact,
				conversation: { id: conversationId, channel: scene.channel },
				agent: { id: operatorId, name: scene.agentName ?? '' },
				timeZone,
				now,
			},
			// What it renders is sent as the operator's message: bounded by that message's limit.
			MAX_OPERATOR_TEXT,
		);
		return { text: text.trim() };
	} catch (error) {
		if (error instanceof TemplateError) {
			throw new Invalid(`the reply does not render: ${error.message}`, { field: ['text'], cause: error });
		}
		throw error;
	}
}
