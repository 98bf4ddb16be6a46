// Builds the benchmark's data: SQL files of multi-row INSERTs (one contact per conversation) that
// `executeFile` from scripts/local-db.mjs loads into the local D1 database.
import { writeFile } from 'node:fs/promises';
import { literal } from '../scripts/local-db.mjs';

const ROWS_PER_INSERT = 500;
const MINUTE = 60_000;

const CONTACT_COLUMNS = 'id, workspace_id, name, email, phone, custom_fields, created_at, updated_at';
const CONVERSATION_COLUMNS =
	'id, workspace_id, contact_id, channel, status, created_at, updated_at, last_message_at, last_activity_at';

/** A short tag unique to one generated data set, so ids never collide across workspaces or runs. */
function runTag(slug, now) {
	return `${slug.replaceAll('-', '')}${now.toString(36)}`.toUpperCase();
}

/**
 * The rows for `count` conversations of one workspace, each with its own contact. Activity times are
 * distinct and spread one minute apart going back from `now`, so the list order is fully determined.
 */
export function conversationRows({ slug, workspaceId, count, now }) {
	const tag = runTag(slug, now);
	const contacts = [];
	const conversations = [];
	const conversationIds = [];
	for (let i = 0; i < count; i++) {
		const suffix = `${tag}${String(i).padStart(6, '0')}`;
		const contactId = `ct_${suffix}`;
		const conversationId = `conv_${suffix}`;
		conversationIds.push(conversationId);
		const createdAt = now - (count - i) * MINUTE - 30_000;
		const activityAt = now - (count - i) * MINUTE;
		contacts.push(
			[
				literal(contactId),
				literal(workspaceId),
				literal(`Bench contact ${i}`),
				literal(`contact-${i}@${slug}.bench.test`),
				'NULL',
				literal('{}'),
				createdAt,
				createdAt,
			].join(', '),
		);
		conversations.push(
			[
				literal(conversationId),
				literal(workspaceId),
				literal(contactId),
				literal(i % 3 === 0 ? 'widget' : 'api'),
				literal('open'),
				createdAt,
				activityAt,
				'NULL',
				activityAt,
			].join(', '),
		);
	}
	return { contacts, conversations, conversationIds };
}

function insertStatements(table, columns, rows) {
	const statements = [];
	for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
		const values = rows
			.slice(start, start + ROWS_PER_INSERT)
			.map((row) => `(${row})`)
			.join(',\n');
		statements.push(`INSERT INTO ${table} (${columns}) VALUES\n${values};`);
	}
	return statements;
}

/**
 * Writes one SQL file that inserts every workspace's contacts, then its conversations. Returns the
 * conversation ids per workspace slug (in insertion order, oldest activity first).
 */
export async function writeDatasetSql(file, workspaces, now = Date.now()) {
	const statements = [];
	const ids = {};
	for (const workspace of workspaces) {
		const rows = conversationRows({ ...workspace, now });
		statements.push(...insertStatements('contacts', CONTACT_COLUMNS, rows.contacts));
		statements.push(...insertStatements('conversations', CONVERSATION_COLUMNS, rows.conversations));
		ids[workspace.slug] = rows.conversationIds;
	}
	await writeFile(file, `${statements.join('\n')}\n`);
	return ids;
}
