/**
 * Tags: names a workspace shares between its contacts and its conversations. One function per operation,
 * for the /v3 routes now and for bots, scenarios and rules later. Applying a tag by name creates it when the
 * workspace has none of that name (as Chatwoot's labels and Intercom's tags do from the inbox); `tag.created`
 * announces only the explicit creation, `tag.applied` and `tag.removed` every use.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { type Database, violatesForeignKey, violatesUnique } from '../../db/client';
import { contacts, contactTags, conversations, conversationTags, tags } from '../../db/schema';
import { existsInWorkspace } from '../../db/scoped';
import { commit, IF_CHANGED, release } from '../../events/commit';
import { pageOf } from '../../lib/cursor';
import { Conflict, NotFound } from '../../lib/errors';
import { iso, newId } from '../../lib/ids';
import type { Actor } from '../../model/actor';
import { changesOf, newEvent } from '../../model/events';
import { tagNameSchema } from './conversations';

export const tagSchema = z
	.object({
		id: z.string().openapi({ description: 'The tag id.', example: 'tag_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'The name, unique in the workspace.', example: 'vip' }),
		createdAt: z.string().openapi({ description: 'When the tag was created (ISO 8601).' }),
	})
	.openapi('Tag');

export type TagView = z.infer<typeof tagSchema>;

export const tagBodySchema = z
	.strictObject({ name: tagNameSchema.openapi({ description: 'The name (trimmed, 1 to 64 characters).' }) })
	.openapi('TagName');

/** Something a tag is applied to. */
export interface TagTarget {
	kind: 'contact' | 'conversation';
	id: string;
}

type TagRow = typeof tags.$inferSelect;

function tagView(row: TagRow): TagView {
	return { id: row.id, name: row.name, createdAt: iso(row.createdAt) };
}

/** Position in the tag list: the last name seen (names are unique in a workspace). */
export const tagCursor = z.object({ name: z.string() });

/** One page of the workspace's tags in name order, in one statement. */
export async function listTags(db: Database, workspaceId: string, after: { name: string } | null, limit: number) {
	const rows = await db
		.select()
		.from(tags)
		.where(and(eq(tags.workspaceId, workspaceId), after === null ? undefined : gt(tags.name, after.name)))
		.orderBy(asc(tags.name))
		.limit(limit + 1);
	return pageOf(rows, limit, tagView, (row) => ({ name: row.name }));
}

/** Tag names per statement of `ensureTags`. */
const NAMES_PER_STATEMENT = 20;

async function tagById(db: Database, workspaceId: string, id: string): Promise<TagRow> {
	const row = await db
		.select()
		.from(tags)
		.where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, id)))
		.get();
	if (!row) throw new NotFound(`Tag ${id} not found.`);
	return row;
}

export async function getTag(db: Database, workspaceId: string, id: string): Promise<TagView> {
	return tagView(await tagById(db, workspaceId, id));
}

function nameTaken(name: string) {
	return (error: unknown): never => {
		if (violatesUnique(error, 'tags.name')) {
			throw new Conflict(`The workspace already has a tag named "${name}".`, { cause: error });
		}
		throw error;
	};
}

/** Creates a tag with its `tag.created` event; a 409 when the name is taken. */
export async function createTag(
	env: Env,
	db: Database,
	workspaceId: string,
	name: string,
	actor: Actor,
	now = Date.now(),
): Promise<TagView> {
	const row: TagRow = { id: newId('tag', now), workspaceId, name, createdAt: now };
	const event = newEvent('tag.created', workspaceId, actor, { tag: { id: row.id, name } }, now);
	const committed = await commit(db, { statements: [db.insert(tags).values(row)], events: [event] }, nameTaken(name));
	await release(env, committed.events);
	return tagView(row);
}

/**
 * Renames a tag (everything carrying it keeps it), with a `tag.updated` event from the old name to the new;
 * nothing when the name is the same. The write applies only while the tag still has the name read.
 */
export async function renameTag(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	name: string,
	actor: Actor,
	now = Date.now(),
): Promise<TagView> {
	const current = await tagById(db, workspaceId, id);
	if (current.name === name) return tagView(current);
	const update = db
		.update(tags)
		.set({ name })
		.where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, id), eq(tags.name, current.name)));
	const event = newEvent(
		'tag.updated',
		workspaceId,
		actor,
		{ tag: { id, name }, ...changesOf({ name: { from: current.name, to: name } }) },
		now,
	);
	const committed = await commit(
		db,
		{ statements: [update], events: [{ event, onlyIf: IF_CHANGED }] },
		nameTaken(name),
	);
	if ((committed.results[0]?.meta.changes ?? 0) === 0) {
		throw new Conflict(`Tag ${id} was renamed or deleted at the same moment; read it again.`);
	}
	await release(env, committed.events);
	return tagView({ ...current, name });
}

/** Deletes a tag from the workspace and from every contact and conversation, with one `tag.deleted`. */
export async function deleteTag(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	now = Date.now(),
): Promise<void> {
	const current = await tagById(db, workspaceId, id);
	const statements = [
		db.delete(contactTags).where(and(eq(contactTags.workspaceId, workspaceId), eq(contactTags.tagId, id))),
		db
			.delete(conversationTags)
			.where(and(eq(conversationTags.workspaceId, workspaceId), eq(conversationTags.tagId, id))),
		db.delete(tags).where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, id))),
	];
	const event = newEvent('tag.deleted', workspaceId, actor, { tag: { id, name: current.name } }, now);
	const committed = await commit(db, { statements, events: [{ event, onlyIf: IF_CHANGED }] });
	await release(env, committed.events);
}

/**
 * The workspace's tags of these names, created when missing (without `tag.created`: a tag first used is
 * announced by `tag.applied`). A name created by a concurrent call is found, not duplicated.
 */
export async function ensureTags(
	db: Database,
	workspaceId: string,
	names: string[],
	now = Date.now(),
): Promise<Map<string, TagRow>> {
	const found = new Map<string, TagRow>();
	const unique = [...new Set(names)];
	// D1 binds at most 100 parameters to a statement: a new tag row takes 4.
	for (let i = 0; i < unique.length; i += NAMES_PER_STATEMENT) {
		const chunk = unique.slice(i, i + NAMES_PER_STATEMENT);
		const byName = () =>
			db
				.select()
				.from(tags)
				.where(and(eq(tags.workspaceId, workspaceId), inArray(tags.name, chunk)));
		let rows = await byName();
		if (rows.length < chunk.length) {
			const missing = chunk.filter((name) => !rows.some((tag) => tag.name === name));
			await db
				.insert(tags)
				.values(missing.map((name) => ({ id: newId('tag', now), workspaceId, name, createdAt: now })))
				.onConflictDoNothing();
			rows = await byName();
		}
		for (const tag of rows) found.set(tag.name, tag);
	}
	return found;
}

/** `ensureTags`, every name found: a 409 when one was deleted between its creation and its read. */
export async function tagsNamed(db: Database, workspaceId: string, names: string[], now = Date.now()) {
	const found = await ensureTags(db, workspaceId, names, now);
	return [...new Set(names)].map((name) => {
		const tag = found.get(name);
		if (!tag) throw new Conflict(`The tag "${name}" was deleted at the same moment; retry.`);
		return tag;
	});
}

async function assertTarget(db: Database, workspaceId: string, target: TagTarget): Promise<void> {
	const table = target.kind === 'contact' ? contacts : conversations;
	if (!(await existsInWorkspace(db, table, workspaceId, target.id))) {
		throw new NotFound(`${target.kind === 'contact' ? 'Contact' : 'Conversation'} ${target.id} not found.`);
	}
}

/** The table that links tags to each kind of target, and its column naming the target. */
const LINKS = {
	contact: { table: sql.identifier('contact_tags'), column: sql.identifier('contact_id') },
	conversation: { table: sql.identifier('conversation_tags'), column: sql.identifier('conversation_id') },
} as const;

/** The statements that link a tag to its target (unless linked already) and unlink it. */
function link(workspaceId: string, target: TagTarget, tagId: string) {
	const { table, column } = LINKS[target.kind];
	return {
		insert: sql`INSERT INTO ${table} (workspace_id, ${column}, tag_id) VALUES (${workspaceId}, ${target.id}, ${tagId}) ON CONFLICT DO NOTHING`,
		delete: sql`DELETE FROM ${table} WHERE workspace_id = ${workspaceId} AND ${column} = ${target.id} AND tag_id = ${tagId}`,
	};
}

/**
 * A conversation's tag change moves its update and activity times, as a PATCH of its tags does, only when
 * the link statement right before it changed a row; its own change count then decides the event after it.
 */
function touched(db: Database, workspaceId: string, target: TagTarget, now: number) {
	if (target.kind !== 'conversation') return [];
	return [
		db
			.update(conversations)
			.set({ updatedAt: now, lastActivityAt: now })
			.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, target.id), IF_CHANGED)),
	];
}

/**
 * Applies the tag named `name` to a contact or a conversation (creating the tag when the workspace has
 * none of that name), with `tag.applied` only when the target did not carry it already. NotFound when the
 * target is not the workspace's.
 */
export async function applyTag(
	env: Env,
	db: Database,
	workspaceId: string,
	target: TagTarget,
	name: string,
	actor: Actor,
	now = Date.now(),
): Promise<TagView> {
	await assertTarget(db, workspaceId, target);
	const [tag] = await tagsNamed(db, workspaceId, [name], now);
	if (!tag) throw new Error('tagsNamed returns one tag per name');
	const event = newEvent('tag.applied', workspaceId, actor, { tag: { id: tag.id, name: tag.name }, target }, now);
	const committed = await commit(
		db,
		{
			statements: [link(workspaceId, target, tag.id).insert, ...touched(db, workspaceId, target, now)],
			events: [{ event, onlyIf: IF_CHANGED }],
		},
		(error) => {
			// The target or the tag was deleted between the checks and the write.
			if (violatesForeignKey(error)) {
				throw new Conflict(`The ${target.kind} or the tag was deleted at the same moment.`, { cause: error });
			}
			throw error;
		},
	);
	await release(env, committed.events);
	return tagView(tag);
}

/**
 * Takes the tag named `name` off a contact or a conversation, with `tag.removed` only when it carried it; a
 * name it does not carry (or no tag has) changes nothing. NotFound when the target is not the workspace's.
 */
export async function removeTag(
	env: Env,
	db: Database,
	workspaceId: string,
	target: TagTarget,
	name: string,
	actor: Actor,
	now = Date.now(),
): Promise<void> {
	await assertTarget(db, workspaceId, target);
	const tag = await db
		.select({ id: tags.id, name: tags.name })
		.from(tags)
		.where(and(eq(tags.workspaceId, workspaceId), eq(tags.name, name)))
		.get();
	if (!tag) return;
	const event = newEvent('tag.removed', workspaceId, actor, { tag, target }, now);
	const committed = await commit(db, {
		statements: [link(workspaceId, target, tag.id).delete, ...touched(db, workspaceId, target, now)],
		events: [{ event, onlyIf: IF_CHANGED }],
	});
	await release(env, committed.events);
}
