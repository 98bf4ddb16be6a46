// What one row of each kind costs on disk in D1, with the real schema: applies migrations/*.sql in order to
// a fresh SQLite file, inserts rows shaped like production's (ids, text lengths, JSON payloads as the code
// writes them), and reads SQLite's `dbstat` before and after each kind: the pages each table, index and FTS
// shadow table gained, divided by the rows. Then times, in SQLite alone, the statements a message's D1 copy
// runs, the floor of what one database's single writer spends per message. Numbers for docs/SCALING.md.
//
//   node_modules/.bin/node bench/capacity.mjs [--rows 10000] [--out /tmp/capacity.json]
//
// It uses Node 22's built-in node:sqlite (FTS5 and dbstat compiled in), not wrangler: D1 is SQLite, and the
// bytes a row takes are SQLite's. The room's own SQLite copy (a Durable Object's storage) is not D1 and is
// not measured here.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
	options: { rows: { type: 'string', default: '10000' }, out: { type: 'string' } },
});
const ROWS = Number.parseInt(args.rows, 10);
const MIGRATIONS = new URL('../migrations/', import.meta.url);

// A seeded generator (mulberry32), so two runs write the same rows.
let seed = 42;
function random() {
	seed = (seed + 0x6d2b79f5) | 0;
	let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
	t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
	return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
}
const pick = (list) => list[Math.floor(random() * list.length)];

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** src/lib/ids.ts's prefixed ULID: 10 characters of time, 16 random. */
function newId(prefix, now) {
	let time = '';
	let t = now;
	for (let i = 0; i < 10; i++) {
		time = CROCKFORD[t % 32] + time;
		t = Math.floor(t / 32);
	}
	let rest = '';
	for (let i = 0; i < 16; i++) rest += CROCKFORD[Math.floor(random() * 32)];
	return `${prefix}_${time}${rest}`;
}
const uuid = () =>
	'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, () => Math.floor(random() * 16).toString(16));
const iso = (ms) => new Date(ms).toISOString();

const WORDS = (
	'hello thanks order delivery parcel refund invoice account password reset please could you help with my ' +
	'the a when will it arrive tomorrow today price discount code size colour blue small large return exchange ' +
	'shipping address changed card payment failed twice subscription cancel renew plan upgrade question about ' +
	'warranty broken screen kettle lamp chair booking table tonight people available yes no maybe great perfect'
).split(' ');
/** A chat line of 60 to 120 characters, like the messages people type into a support widget. */
function messageText() {
	const length = 60 + Math.floor(random() * 61);
	let text = pick(WORDS);
	while (text.length < length) text += ` ${pick(WORDS)}`;
	return `${text.slice(0, length - 1)}.`;
}
const FIRST = ['Alice', 'Bilal', 'Chen', 'Daria', 'Emeka', 'Fatima', 'Giulia', 'Hiro', 'Ines', 'Jonas'];
const LAST = ['Martin', 'Okafor', 'Novak', 'Silva', 'Tanaka', 'Haddad', 'Larsen', 'Moreau', 'Kowalski', 'Reyes'];

function origin(i) {
	const paid = i % 3 === 0;
	return {
		utmSource: paid ? 'google' : null,
		utmMedium: paid ? 'cpc' : null,
		utmCampaign: paid ? 'spring-sale-2026' : null,
		utmContent: null,
		utmTerm: null,
		gclid: paid ? `Cj0KCQiA${uuid().replaceAll('-', '').slice(0, 24)}` : null,
		fbclid: null,
		landingUrl: `https://shop.example.com/products/${pick(WORDS)}-${pick(WORDS)}${paid ? '?utm_source=google' : ''}`,
		referrer: paid ? 'https://www.google.com/' : null,
		ctwaClid: null,
		adReferral: null,
	};
}

// ---------------------------------------------------------------------------------------------------------
// The database: migrations in order, then one workspace with a few operators, as a deployment starts.

const dir = mkdtempSync(join(tmpdir(), 'parley-capacity-'));
const db = new DatabaseSync(join(dir, 'capacity.sqlite'));
// No fsync: D1 makes a write durable by replicating its log, not by this disk, so the timing below is SQLite's
// own work. The pages a row takes do not depend on it.
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF');
for (const file of readdirSync(MIGRATIONS)
	.filter((f) => f.endsWith('.sql'))
	.sort()) {
	db.exec(readFileSync(new URL(file, MIGRATIONS), 'utf8').replaceAll('--> statement-breakpoint', ''));
}
const PAGE_SIZE = db.prepare('PRAGMA page_size').get().page_size;

const START = Date.parse('2026-01-05T08:00:00Z');
let clock = START;
const tick = () => {
	clock += 1 + Math.floor(random() * 4000);
	return clock;
};
const workspaceId = newId('ws', START);
const operatorIds = Array.from({ length: 5 }, (_, i) => newId('op', START + i));
db.prepare('INSERT INTO workspaces (id, slug, name, created_at) VALUES (?, ?, ?, ?)').run(
	workspaceId,
	'capacity',
	'Capacity Ltd',
	START,
);
const operatorInsert = db.prepare(
	`INSERT INTO operators (id, workspace_id, name, email, permissions, created_at) VALUES (?, ?, ?, ?, '[]', ?)`,
);
for (const [i, id] of operatorIds.entries()) operatorInsert.run(id, workspaceId, `Agent ${i}`, `a${i}@x.test`, START);

/** Pages per object (table, index, FTS shadow table), as dbstat counts them. */
function pagesByObject() {
	const rows = db.prepare('SELECT name, count(*) AS pages, sum(payload) AS payload FROM dbstat GROUP BY name').all();
	return new Map(rows.map((r) => [r.name, { pages: r.pages, payload: r.payload }]));
}
const filePages = () => db.prepare('PRAGMA page_count').get().page_count;

/** Runs `insert(i)` ROWS times in transactions of 100 and returns the bytes per row, per object and in total. */
function measure(kind, insert) {
	const before = pagesByObject();
	const fileBefore = filePages();
	for (let start = 0; start < ROWS; start += 100) {
		db.exec('BEGIN');
		for (let i = start; i < Math.min(ROWS, start + 100); i++) insert(i);
		db.exec('COMMIT');
	}
	const after = pagesByObject();
	const objects = [];
	for (const [name, now] of after) {
		const was = before.get(name) ?? { pages: 0, payload: 0 };
		const pages = now.pages - was.pages;
		if (pages === 0) continue;
		objects.push({ name, bytesPerRow: (pages * PAGE_SIZE) / ROWS, payloadPerRow: (now.payload - was.payload) / ROWS });
	}
	objects.sort((a, b) => b.bytesPerRow - a.bytesPerRow);
	const total = ((filePages() - fileBefore) * PAGE_SIZE) / ROWS;
	return { kind, rows: ROWS, bytesPerRow: total, objects };
}

// ---------------------------------------------------------------------------------------------------------
// The kinds. Contacts and conversations first (messages need them), each shaped as the code writes it.

const contactIds = [];
const conversationIds = [];
const CONVERSATIONS_FOR_MESSAGES = Math.max(1, Math.floor(ROWS / 8));

const results = [];
const contactInsert = db.prepare(
	`INSERT INTO contacts (id, workspace_id, name, email, phone, custom_fields, first_origin, last_origin, created_at,
		updated_at, verified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
results.push(
	measure('contact (name, e-mail, half with a phone, 2 custom fields, origin)', (i) => {
		const at = tick();
		const id = newId('ct', at);
		contactIds.push(id);
		const first = pick(FIRST);
		const last = pick(LAST);
		const o = JSON.stringify(origin(i));
		contactInsert.run(
			id,
			workspaceId,
			`${first} ${last}`,
			`${first}.${last}${i}@example-mail.com`.toLowerCase(),
			i % 2 === 0 ? `+4477009${String(i).padStart(5, '0')}` : null,
			JSON.stringify({ plan: pick(['free', 'pro', 'business']), company: `${last} & ${pick(LAST)} Ltd` }),
			o,
			o,
			at,
			at,
			i % 4 === 0 ? at : null,
		);
	}),
);

const conversationInsert = db.prepare(
	`INSERT INTO conversations (id, workspace_id, contact_id, channel, status, assignee_id, group_id, utm_source,
		utm_medium, utm_campaign, gclid, landing_url, referrer, last_message_seq, unread_by_operators, unread_by_contact,
		created_at, updated_at, last_message_at, last_activity_at, start_key, status_changed_at, waiting_since,
		first_response_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?, NULL, ?)`,
);
results.push(
	measure('conversation (widget, assigned, closed, a third from a paid click)', (i) => {
		const at = tick();
		const id = newId('conv', at);
		conversationIds.push(id);
		const o = origin(i);
		const end = at + 600_000;
		conversationInsert.run(
			id,
			workspaceId,
			contactIds[i % contactIds.length],
			'widget',
			i % 10 === 0 ? 'open' : 'closed',
			pick(operatorIds),
			o.utmSource,
			o.utmMedium,
			o.utmCampaign,
			o.gclid,
			o.landingUrl,
			o.referrer,
			8,
			at,
			end,
			end,
			end,
			uuid(),
			end,
			at + 45_000,
		);
	}),
);

// Messages go to ROWS / 8 conversations, interleaved in time as real traffic is, so the indexes keyed by
// conversation take their rows in scattered places (pages about two-thirds full), not appended in order.
const messageInsert = db.prepare(
	`INSERT INTO messages (id, workspace_id, conversation_id, seq, author_kind, author_id, body, attachments,
		client_message_id, created_at, interactive, private) VALUES (?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, NULL, 0)`,
);
const nextSeq = new Map();
const messageSamples = [];
results.push(
	measure('message (60 to 120 characters, with its FTS5 entry)', (i) => {
		const at = tick();
		const conversationId = conversationIds[Math.floor(random() * CONVERSATIONS_FOR_MESSAGES)];
		const seq = (nextSeq.get(conversationId) ?? 0) + 1;
		nextSeq.set(conversationId, seq);
		const fromContact = seq % 2 === 1;
		const id = newId('msg', at);
		const body = messageText();
		messageInsert.run(
			id,
			workspaceId,
			conversationId,
			seq,
			fromContact ? 'contact' : 'operator',
			fromContact ? contactIds[i % contactIds.length] : pick(operatorIds),
			body,
			fromContact ? uuid() : null,
			at,
		);
		if (i < 1000) messageSamples.push({ id, conversationId, seq, fromContact, body, at });
	}),
);

/** The events log's row, as recordEvents writes it (src/queue/events-consumer.ts). */
const eventInsert = db.prepare(
	'INSERT INTO events (id, workspace_id, type, occurred_at, actor, payload, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
);
function messageEvent(sample) {
	return {
		message: {
			id: sample.id,
			conversationId: sample.conversationId,
			seq: sample.seq,
			authorKind: sample.fromContact ? 'contact' : 'operator',
			authorId: sample.fromContact ? contactIds[0] : operatorIds[0],
			text: sample.body,
			attachmentCount: 0,
			interactive: null,
			private: false,
			createdAt: iso(sample.at),
		},
		channel: 'widget',
	};
}
const actorOf = (sample) => JSON.stringify({ kind: sample.fromContact ? 'contact' : 'operator', id: operatorIds[0] });
results.push(
	measure('event: message.created (the message text in its payload)', (i) => {
		const at = tick();
		const sample = messageSamples[i % messageSamples.length];
		eventInsert.run(
			newId('evt', at),
			workspaceId,
			'message.created',
			at,
			actorOf(sample),
			JSON.stringify(messageEvent(sample)),
			at + 900,
		);
	}),
);
const summary = (i) => ({
	id: conversationIds[i % conversationIds.length],
	contactId: contactIds[i % contactIds.length],
	channel: 'widget',
	status: 'open',
	assigneeId: operatorIds[i % operatorIds.length],
	groupId: null,
});
results.push(
	measure('event: conversation.updated (assigned)', (i) => {
		const at = tick();
		const payload = {
			conversation: summary(i),
			changed: ['assigneeId'],
			changes: { assigneeId: { from: null, to: operatorIds[i % operatorIds.length] } },
		};
		eventInsert.run(
			newId('evt', at),
			workspaceId,
			'conversation.updated',
			at,
			'{"kind":"system","id":null}',
			JSON.stringify(payload),
			at + 900,
		);
	}),
);

results.push(
	measure('event: conversation.read (a read receipt)', (i) => {
		const at = tick();
		const byOperator = i % 2 === 0;
		const payload = {
			conversationId: conversationIds[i % conversationIds.length],
			reader: byOperator ? 'operator' : 'contact',
			operatorId: byOperator ? operatorIds[i % operatorIds.length] : null,
			seq: 1 + (i % 8),
		};
		const actor = byOperator ? { kind: 'operator', id: payload.operatorId } : { kind: 'contact', id: null };
		eventInsert.run(
			newId('evt', at),
			workspaceId,
			'conversation.read',
			at,
			JSON.stringify(actor),
			JSON.stringify(payload),
			at + 900,
		);
	}),
);

results.push(
	measure('event: conversation.created', (i) => {
		const at = tick();
		const actor = { kind: 'contact', id: contactIds[i % contactIds.length] };
		eventInsert.run(
			newId('evt', at),
			workspaceId,
			'conversation.created',
			at,
			JSON.stringify(actor),
			JSON.stringify({ conversation: { ...summary(i), assigneeId: null } }),
			at + 900,
		);
	}),
);
results.push(
	measure('event: contact.created', (i) => {
		const at = tick();
		const contact = {
			id: contactIds[i % contactIds.length],
			name: 'Daria Novak',
			email: `daria.novak${i}@example-mail.com`,
			phone: null,
			verified: false,
		};
		eventInsert.run(
			newId('evt', at),
			workspaceId,
			'contact.created',
			at,
			'{"kind":"contact","id":null}',
			JSON.stringify({ contact }),
			at + 900,
		);
	}),
);

// Written with the change and deleted once the event is on the Queue (src/events/commit.ts, release): what a
// row costs while it waits, not what stays.
const outboxInsert = db.prepare('INSERT INTO event_outbox (id, workspace_id, event, created_at) VALUES (?, ?, ?, ?)');
results.push(
	measure('event_outbox row (transient: deleted on release)', (i) => {
		const at = tick();
		const id = newId('evt', at);
		const event = {
			id,
			type: 'conversation.updated',
			workspaceId,
			occurredAt: iso(at),
			actor: { kind: 'system', id: null },
		};
		outboxInsert.run(
			id,
			workspaceId,
			JSON.stringify({
				...event,
				payload: { conversation: summary(i), changed: ['status'], changes: { status: { from: 'open', to: 'closed' } } },
			}),
			at,
		);
	}),
);

const endpointId = newId('whe', START);
const deliveryInsert = db.prepare(
	`INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, body, status, attempts,
		next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'message.created', ?, 'delivered', 1, NULL, ?, ?)`,
);
const attemptInsert = db.prepare(
	`INSERT INTO webhook_attempts (delivery_id, attempt, workspace_id, at, status_code, error, response, duration_ms)
	 VALUES (?, 1, ?, ?, 200, NULL, ?, ?)`,
);
results.push(
	measure('webhook delivery of a message.created, with its one attempt', (i) => {
		const at = tick();
		const id = newId('whd', at);
		const eventId = newId('evt', at);
		const sample = messageSamples[i % messageSamples.length];
		const body = JSON.stringify({
			type: 'message.created',
			timestamp: iso(at),
			data: { id: eventId, workspaceId, actor: JSON.parse(actorOf(sample)), ...messageEvent(sample) },
		});
		deliveryInsert.run(id, workspaceId, endpointId, eventId, body, at, at + 120);
		attemptInsert.run(id, workspaceId, at + 120, '{"ok":true}', 40 + Math.floor(random() * 200));
	}),
);

const ruleId = newId('rule', START);
const executionInsert = db.prepare(
	`INSERT INTO rule_executions (id, workspace_id, rule_id, event_id, event_type, conversation_id, contact_id, status,
		reason, outcomes, depth, created_at, updated_at) VALUES (?, ?, ?, ?, 'message.created', ?, ?, 'succeeded', NULL, ?, 0, ?, ?)`,
);
results.push(
	measure('rule execution (two actions; kept 30 days)', (i) => {
		const at = tick();
		const outcomes = [
			{ action: 'tag', status: 'succeeded', detail: 'urgent' },
			{ action: 'message', status: 'succeeded', detail: newId('msg', at) },
		];
		executionInsert.run(
			newId('rex', at),
			workspaceId,
			ruleId,
			newId('evt', at),
			conversationIds[i % conversationIds.length],
			contactIds[i % contactIds.length],
			JSON.stringify(outcomes),
			at,
			at + 30,
		);
	}),
);

const campaignId = newId('cmp', START);
db.prepare(
	`INSERT INTO campaigns (id, workspace_id, name, template, audience, channel, status, created_at, updated_at)
	 VALUES (?, ?, 'Spring sale', '{}', '{}', 'widget', 'sent', ?, ?)`,
).run(campaignId, workspaceId, START, START);
const recipientInsert = db.prepare(
	`INSERT INTO campaign_recipients (workspace_id, campaign_id, contact_id, batch, status, claimed_until, error,
		conversation_id, message_id, sent_at, replied_at, reply_conversation_id) VALUES (?, ?, ?, ?, 'sent', NULL, NULL, ?, ?, ?, NULL, NULL)`,
);
results.push(
	measure('campaign recipient (sent)', (i) => {
		const at = tick();
		recipientInsert.run(
			workspaceId,
			campaignId,
			contactIds[i % contactIds.length],
			Math.floor(i / 400),
			conversationIds[i % conversationIds.length],
			newId('msg', at),
			at,
		);
	}),
);

const apiLogInsert = db.prepare(
	`INSERT INTO api_logs (id, workspace_id, at, operator_id, credential, hint, method, path, status, duration_ms,
		rate_remaining, rate_limited) VALUES (?, ?, ?, ?, 'token', 'prly_…x9Qe', ?, ?, 200, ?, ?, 0)`,
);
results.push(
	measure('API log entry (kept 30 days)', (i) => {
		const at = tick();
		apiLogInsert.run(
			newId('log', at),
			workspaceId,
			at,
			operatorIds[0],
			i % 3 ? 'GET' : 'POST',
			`/v3/conversations/${conversationIds[i % conversationIds.length]}/messages`,
			5 + (i % 40),
			1000 - (i % 1000),
		);
	}),
);

const sessionInsert = db.prepare(
	`INSERT INTO visitor_sessions (id, workspace_id, contact_id, origin, created_at, last_seen_at, ended_at)
	 VALUES (?, ?, ?, ?, ?, ?, NULL)`,
);
results.push(
	measure('widget visitor session', (i) => {
		const at = tick();
		sessionInsert.run(
			newId('vs', at),
			workspaceId,
			contactIds[i % contactIds.length],
			JSON.stringify(origin(i)),
			at,
			at + 300_000,
		);
	}),
);

// ---------------------------------------------------------------------------------------------------------
// What SQLite itself spends on a message's D1 copy (room-outbox.ts writeToD1: the insert with its FTS entry and
// the conversation's summary update), one transaction each, on the database as it now stands.

const copies = Math.min(2000, ROWS);
const summaryUpdate = db.prepare(
	`UPDATE conversations SET last_message_seq = ?, last_message_at = ?, unread_by_operators = ?, unread_by_contact = 0,
		waiting_since = ?, last_activity_at = MAX(last_activity_at, ?), updated_at = MAX(updated_at, ?)
	 WHERE id = ? AND workspace_id = ? AND last_message_seq <= ?
	 RETURNING (SELECT live_feed FROM workspaces WHERE id = ?) AS live_feed`,
);
const durations = [];
for (let i = 0; i < copies; i++) {
	const started = performance.now();
	const at = tick();
	const conversationId = conversationIds[Math.floor(random() * conversationIds.length)];
	const seq = (nextSeq.get(conversationId) ?? 0) + 1;
	nextSeq.set(conversationId, seq);
	db.exec('BEGIN');
	messageInsert.run(
		newId('msg', at),
		workspaceId,
		conversationId,
		seq,
		'contact',
		contactIds[0],
		messageText(),
		uuid(),
		at,
	);
	summaryUpdate.all(seq, at, 1, at, at, at, conversationId, workspaceId, seq, workspaceId);
	db.exec('COMMIT');
	durations.push(performance.now() - started);
}
durations.sort((a, b) => a - b);
const copyMs = durations[Math.floor(copies / 2)];

const report = {
	at: new Date().toISOString(),
	sqlite: db.prepare('SELECT sqlite_version() AS v').get().v,
	pageSize: PAGE_SIZE,
	rowsPerKind: ROWS,
	kinds: results,
	messageCopy: { transactions: copies, medianMs: copyMs, perSecond: 1000 / copyMs },
};
db.close();
rmSync(dir, { recursive: true, force: true });

for (const r of report.kinds) {
	console.log(`\n${r.kind}: ${r.bytesPerRow.toFixed(0)} bytes a row`);
	for (const o of r.objects) {
		console.log(
			`  ${o.name.padEnd(36)} ${o.bytesPerRow.toFixed(1).padStart(7)}  (payload ${o.payloadPerRow.toFixed(1)})`,
		);
	}
}
console.log(
	`\nmessage copy (insert + FTS + summary update), one transaction each: median ${copyMs.toFixed(3)} ms, ` +
		`${report.messageCopy.perSecond.toFixed(0)} a second in SQLite alone`,
);
if (args.out) writeFileSync(args.out, `${JSON.stringify(report, null, '\t')}\n`);
