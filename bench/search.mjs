// The search section of `npm run bench -- --only search`: message search over 1,000,000 messages in 10,000
// conversations of one workspace, measured at 100,000 messages and again at 1,000,000, each against GET /health
// in the same run.
// - seeding: SQL run by `wrangler d1 execute --local` before wrangler dev serves the database (it is stopped
//   while the next 900,000 go in). The messages are plain INSERTs into `messages`, so migration 0035's trigger
//   indexes each one into `messages_fts` as the conversation room's outbox batch does in production; nothing
//   writes the index directly. Message i belongs to conversation i mod 10,000 with seq i div 10,000 + 1, and
//   says eight words picked from a vocabulary of 512 (each word is in about 1.6 % of messages).
// - a busier neighbour: a last stage adds NEIGHBOUR_MESSAGES messages of a second workspace, newer than all
//   of the first's and every one saying "refund" and "invoice", then measures the first workspace's search
//   again: its rows read and latency must not move (decision 0079: the index holds the workspace).
// - figures: GET /v3/conversations/search one request at a time (a person searching), for a one-word query and
//   a two-word query (both words in the same message: about 0.02 % of messages), p50 and p99 and their ratio
//   to GET /health's, and the rows D1 read for each request (`d1-rows` of its Server-Timing, from D1's
//   `meta.rows_read`): the goal is a figure that does not grow with the number of messages.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { executeFile, literal } from '../scripts/local-db.mjs';
import { latencySummary, parseServerTiming, timedRequest } from './load.mjs';
import { ratio, round } from './report-format.mjs';

export const SEARCH_CONVERSATIONS = 10_000;
export const SEARCH_STAGES = [100_000, 1_000_000];
const VOCABULARY = 512;
const WORDS_PER_MESSAGE = 8;
/** Real words first (the queries use them); the rest are made-up words of the same weight. */
const COMMON = ['refund', 'invoice', 'delivery', 'order', 'tracking', 'password', 'account', 'shipping'];
export const QUERIES = { oneWord: 'refund', twoWords: 'refund invoice' };
/** The second workspace's messages in the last stage, all newer than the first's and all matching both queries. */
export const NEIGHBOUR_MESSAGES = 200_000;
const NEIGHBOUR_CONVERSATIONS = 100;
const REQUESTS = 200;
const WARMUP = 10;
// Rows of one INSERT … SELECT: one statement per this many messages keeps each statement well inside what
// wrangler's local D1 takes in one go.
const ROWS_PER_STATEMENT = 100_000;

const word = (k) => COMMON[k] ?? `w${k.toString(36)}x`;

/** SQL: the workspace's 10,000 contacts and conversations (no messages yet). */
function conversationsSql(workspaceId, now) {
	const ws = literal(workspaceId);
	return `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${SEARCH_CONVERSATIONS - 1})
		INSERT INTO contacts (id, workspace_id, name, custom_fields, created_at, updated_at)
		SELECT printf('ctc_s_%05d', i), ${ws}, 'Customer ' || i, '{}', ${now}, ${now} FROM n;
	WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${SEARCH_CONVERSATIONS - 1})
		INSERT INTO conversations (id, workspace_id, contact_id, channel, status, created_at, updated_at,
			status_changed_at, last_activity_at, last_message_seq)
		SELECT printf('conv_s_%05d', i), ${ws}, printf('ctc_s_%05d', i), 'widget',
			CASE i % 3 WHEN 0 THEN 'open' WHEN 1 THEN 'pending' ELSE 'closed' END, ${now}, ${now}, ${now}, ${now}, 0 FROM n;`;
}

/** SQL: messages [from, to), through `messages` and so through its FTS trigger. */
function messagesSql(workspaceId, from, to, now) {
	const ws = literal(workspaceId);
	const vocabulary = Array.from({ length: VOCABULARY }, (_, k) => `(${k}, '${word(k)}')`).join(', ');
	// Pseudo-random but repeatable word picks: a different multiplier for each of the eight places.
	const picks = [7919, 104729, 1299709, 15485863, 179424673, 2038074743, 982451653, 32452843]
		.slice(0, WORDS_PER_MESSAGE)
		.map((prime, j) => `(SELECT w FROM bench_vocab WHERE k = ((i * ${prime} + ${j * 131}) % 1000003) % ${VOCABULARY})`)
		.join(" || ' ' || ");
	const statements = [
		'CREATE TABLE IF NOT EXISTS bench_vocab (k INTEGER PRIMARY KEY, w TEXT NOT NULL);',
		'DELETE FROM bench_vocab;',
		`INSERT INTO bench_vocab (k, w) VALUES ${vocabulary};`,
	];
	for (let start = from; start < to; start += ROWS_PER_STATEMENT) {
		const end = Math.min(to, start + ROWS_PER_STATEMENT);
		statements.push(`WITH RECURSIVE n(i) AS (SELECT ${start} UNION ALL SELECT i + 1 FROM n WHERE i < ${end - 1})
		INSERT INTO messages (id, workspace_id, conversation_id, seq, author_kind, body, attachments, private, created_at)
		SELECT printf('msg_s_%07d', i), ${ws}, printf('conv_s_%05d', i % ${SEARCH_CONVERSATIONS}),
			i / ${SEARCH_CONVERSATIONS} + 1, CASE i % 2 WHEN 0 THEN 'contact' ELSE 'operator' END, ${picks}, '[]', 0,
			${now} + i FROM n;`);
	}
	statements.push(`UPDATE conversations SET last_message_seq = ${Math.ceil(to / SEARCH_CONVERSATIONS)},
		last_message_at = ${now + to}, last_activity_at = ${now + to} WHERE workspace_id = ${ws};`);
	statements.push('DROP TABLE bench_vocab;');
	return statements.join('\n');
}

/**
 * Writes the conversations (with `from` 0) and messages [from, to) into the local D1 at `persistTo`; returns
 * the seconds it took. wrangler dev must not be serving that database meanwhile.
 */
export async function seedSearch(persistTo, workspaceId, from, to, now) {
	const started = performance.now();
	const file = path.join(persistTo, `bench-search-${to}.sql`);
	await writeFile(
		file,
		`${from === 0 ? conversationsSql(workspaceId, now) : ''}\n${messagesSql(workspaceId, from, to, now)}`,
	);
	executeFile(file, persistTo);
	return round((performance.now() - started) / 1000, 1);
}

/**
 * Writes a second workspace's NEIGHBOUR_CONVERSATIONS conversations and NEIGHBOUR_MESSAGES messages, each
 * saying both query words, after every message of the searched one (newer rowids: a newest-first walk of the
 * words alone meets them first). Returns the seconds it took; wrangler dev must not be serving meanwhile.
 */
export async function seedNeighbour(persistTo, workspaceId, now) {
	const started = performance.now();
	const ws = literal(workspaceId);
	const file = path.join(persistTo, 'bench-search-neighbour.sql');
	await writeFile(
		file,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${NEIGHBOUR_CONVERSATIONS - 1})
		INSERT INTO contacts (id, workspace_id, name, custom_fields, created_at, updated_at)
		SELECT printf('ctc_n_%05d', i), ${ws}, 'Neighbour ' || i, '{}', ${now}, ${now} FROM n;
	WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${NEIGHBOUR_CONVERSATIONS - 1})
		INSERT INTO conversations (id, workspace_id, contact_id, channel, status, created_at, updated_at,
			status_changed_at, last_activity_at, last_message_seq)
		SELECT printf('conv_n_%05d', i), ${ws}, printf('ctc_n_%05d', i), 'widget', 'open', ${now}, ${now}, ${now}, ${now},
			${NEIGHBOUR_MESSAGES / NEIGHBOUR_CONVERSATIONS} FROM n;
	WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${NEIGHBOUR_MESSAGES - 1})
		INSERT INTO messages (id, workspace_id, conversation_id, seq, author_kind, body, attachments, private, created_at)
		SELECT printf('msg_n_%07d', i), ${ws}, printf('conv_n_%05d', i % ${NEIGHBOUR_CONVERSATIONS}),
			i / ${NEIGHBOUR_CONVERSATIONS} + 1, 'contact', 'Where is the refund for invoice ' || i || '?', '[]', 0,
			${now} + i FROM n;`,
	);
	executeFile(file, persistTo);
	return round((performance.now() - started) / 1000, 1);
}

/** The rows a response's Server-Timing says D1 read (`d1-rows;desc="N read"`), or null when it does not say. */
function rowsRead(headers) {
	const entry = parseServerTiming(headers?.get('server-timing')).find((e) => e.name === 'd1-rows');
	const match = /^(\d+)(\+?)/.exec(entry?.desc ?? '');
	return match && match[2] === '' ? Number(match[1]) : null;
}

/** `url` one request at a time, after a few unrecorded: latencies, and the rows read of each. */
async function sequential(url, init, warnings, name) {
	const latencies = [];
	const rows = [];
	let hits = null;
	for (let i = 0; i < WARMUP + REQUESTS; i++) {
		const result = await timedRequest(url, init);
		if (result.status !== 200) {
			warnings.push(`${name}: HTTP ${result.status}`);
			continue;
		}
		if (i < WARMUP) continue;
		latencies.push(result.latencyMs);
		const read = rowsRead(result.headers);
		if (read !== null) rows.push(read);
		if (hits === null && url.includes('/search')) hits = (await (await fetch(url, init)).json()).data.length;
	}
	const sorted = rows.sort((a, b) => a - b);
	return {
		...latencySummary(latencies),
		rowsRead: sorted.length === 0 ? null : { min: sorted[0], median: sorted[sorted.length >> 1], max: sorted.at(-1) },
		hitsOnPage: hits,
	};
}

/** One stage: GET /health and both queries, one request at a time, with ratios to /health. */
export async function measureSearchStage({ baseUrl, token, messages, seedSeconds, warnings, log, neighbour = 0 }) {
	log(
		`search at ${messages} messages${neighbour ? ` beside ${neighbour} newer ones of another workspace` : ''}: GET /health, then "${QUERIES.oneWord}" and "${QUERIES.twoWords}"`,
	);
	const health = await sequential(`${baseUrl}/health`, {}, warnings, 'health');
	const init = { headers: { Authorization: `Bearer ${token}` } };
	const query = async (name, q) => {
		const url = `${baseUrl}/v3/conversations/search?q=${encodeURIComponent(q)}&limit=20`;
		const figures = await sequential(url, init, warnings, name);
		return {
			query: q,
			...figures,
			p50VsHealth: ratio(figures.p50Ms, health.p50Ms),
			p99VsHealth: ratio(figures.p99Ms, health.p99Ms),
		};
	};
	return {
		messages,
		neighbour,
		conversations: SEARCH_CONVERSATIONS,
		seedSeconds,
		health: { p50Ms: health.p50Ms, p99Ms: health.p99Ms },
		oneWord: await query('one word', QUERIES.oneWord),
		twoWords: await query('two words', QUERIES.twoWords),
	};
}
