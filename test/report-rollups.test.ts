import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { groups } from '../src/db/schema';
import { conversationReportRows } from '../src/domain/reports/csv';
import {
	type ConversationReport,
	type ConversationReportQuery,
	conversationReportQuerySchema,
} from '../src/domain/reports/reports';
import { rebuildRollups } from '../src/domain/reports/rollups';
import { toCsv } from '../src/lib/csv';
import { newId } from '../src/lib/ids';
import { api, db, liveConversation, seedOperator, seedWorkspace } from './factories';
import { conversationReportByScan } from './report-oracle';

const S = 1000;
const HOUR = 3600 * S;

/** A deterministic pseudo-random sequence (a 32-bit LCG), so a failure can be replayed. */
function randomness(seed: number) {
	let state = seed;
	const next = () => {
		state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
		return state / 2 ** 32;
	};
	return { next, pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T };
}

interface Seeded {
	token: string;
	workspaceId: string;
	operators: string[];
	group: string;
	ids: string[];
}

/**
 * `count` conversations created at random over `days` days from `start`, every dimension the report groups by
 * drawn from a few values, first responses and resolutions log-uniform from 0.2 s to 2 days (some missing).
 */
async function seedWorkspaceYear(timeZone: string, start: number, days: number, count: number, seed = 7) {
	const { token, workspaceId } = await seedWorkspace();
	expect((await api(token, 'PUT', '/v3/widget/settings', { businessHours: { timeZone } })).status).toBe(200);
	const operators = [
		(await seedOperator(workspaceId, [])).operatorId,
		(await seedOperator(workspaceId, [])).operatorId,
	];
	const group = newId('grp');
	await db.insert(groups).values({ id: group, workspaceId, name: 'Sales', createdAt: Date.now() });
	const contactId = newId('ctc');
	const random = randomness(seed);
	const duration = () => Math.round(200 * Math.exp(random.next() * Math.log((2 * 86_400 * S) / 200)));
	const statements = [
		env.DB.prepare(
			"INSERT INTO contacts (id, workspace_id, custom_fields, created_at, updated_at) VALUES (?, ?, '{}', 0, 0)",
		).bind(contactId, workspaceId),
	];
	const ids: string[] = [];
	for (let i = 0; i < count; i++) {
		const at = start + Math.floor(random.next() * days * 86_400 * S);
		const status = random.pick(['open', 'pending', 'closed', 'closed'] as const);
		const source = random.pick(['google', 'facebook', null, null]);
		const id = newId('conv');
		ids.push(id);
		statements.push(
			env.DB.prepare(
				`INSERT INTO conversations (id, workspace_id, contact_id, channel, status, assignee_id, group_id, utm_source,
				utm_medium, utm_campaign, gclid, fbclid, created_at, updated_at, status_changed_at, last_activity_at,
				first_response_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			).bind(
				id,
				workspaceId,
				contactId,
				random.pick(['widget', 'widget', 'api']),
				status,
				random.pick([...operators, null]),
				random.pick([group, null]),
				source,
				source === 'google' ? 'cpc' : source === 'facebook' ? 'social' : null,
				random.pick(['spring', 'summer', null]),
				source === 'google' && random.next() < 0.5 ? `g-${i}` : null,
				source === 'facebook' && random.next() < 0.5 ? `f-${i}` : null,
				at,
				at,
				status === 'closed' ? at + duration() : at,
				at,
				random.next() < 0.8 ? at + duration() : null,
			),
		);
	}
	for (let i = 0; i < count / 4; i++) {
		const source = random.pick(['google', 'facebook', '', null]);
		const origin = {
			...(source === null ? {} : { utmSource: source }),
			...(random.next() < 0.5 ? { utmCampaign: random.pick(['spring', 'summer']) } : {}),
			...(source === 'google' && random.next() < 0.5 ? { gclid: `g-${i}` } : {}),
			...(source === 'facebook' && random.next() < 0.5 ? { fbclid: `f-${i}` } : {}),
		};
		statements.push(
			env.DB.prepare(
				'INSERT INTO messaging_handoffs (workspace_id, ref, channel, origin, created_at, conversation_id) VALUES (?, ?, ?, ?, ?, ?)',
			).bind(
				workspaceId,
				`R${String(i).padStart(7, '0')}`,
				'whatsapp',
				JSON.stringify(origin),
				start + Math.floor(random.next() * days * 86_400 * S),
				random.next() < 0.3 ? `conv_arrived_${i}` : null,
			),
		);
	}
	await env.DB.batch(statements);
	return { token, workspaceId, operators, group, ids } satisfies Seeded;
}

const queryString = (query: ConversationReportQuery) =>
	new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined)).toString();

async function served(token: string, query: ConversationReportQuery, accept = 'application/json') {
	const res = await api(token, 'GET', `/v3/reports/conversations?${queryString(query)}`, undefined, {
		Accept: accept,
	});
	expect(res.status, await res.clone().text()).toBe(200);
	return res;
}

/** A bucket is at most 2^(1/16) − 1 of its lower bound wide (1 s below 1 s); the tenth of a second rounds. */
function withinResolution(actual: number | null, expected: number | null) {
	if (expected === null || actual === null) return actual === expected;
	return Math.abs(actual - expected) <= Math.max(1, expected * (2 ** (1 / 16) - 1)) + 0.1;
}

/** The served report equals the scan's, counts, sums and CSV rows exactly, percentiles within resolution. */
async function expectSameAsScan(seeded: Seeded, timeZone: string, query: ConversationReportQuery) {
	const report = (await (await served(seeded.token, query)).json()) as ConversationReport;
	// Parsed as the route parses it, so the filters echo in the same order.
	const scan = await conversationReportByScan(
		db,
		seeded.workspaceId,
		conversationReportQuerySchema.parse(query),
		timeZone,
	);
	const exact = (r: ConversationReport) => ({
		...r,
		firstResponse: { count: r.firstResponse.count, averageSeconds: r.firstResponse.averageSeconds },
		resolution: { count: r.resolution.count, averageSeconds: r.resolution.averageSeconds },
	});
	expect(exact(report)).toEqual(exact(scan));
	for (const figure of ['firstResponse', 'resolution'] as const) {
		for (const p of ['medianSeconds', 'p90Seconds'] as const) {
			expect(
				withinResolution(report[figure][p], scan[figure][p]),
				`${figure}.${p}: ${report[figure][p]} for ${scan[figure][p]}`,
			).toBe(true);
		}
	}
	const percentile = /^(first_response|resolution),(median|p90)_seconds,/;
	const csv = (await (await served(seeded.token, query, 'text/csv')).text()).split('\r\n');
	const scanCsv = toCsv(conversationReportRows(scan)).split('\r\n');
	expect(csv.filter((line) => !percentile.test(line))).toEqual(scanCsv.filter((line) => !percentile.test(line)));
	return report;
}

/** Each stored day's figures with the sets named by their dimensions (ids differ between two builds). */
async function storedDays(workspaceId: string, table: 'report_days' | 'report_handoff_days') {
	const { results: sets } = await env.DB.prepare(
		'SELECT id, dimensions FROM report_dimension_sets WHERE workspace_id = ?',
	)
		.bind(workspaceId)
		.all<{ id: number; dimensions: string }>();
	const named = new Map(sets.map((s) => [String(s.id), s.dimensions]));
	const { results } = await env.DB.prepare(`SELECT day, figures FROM ${table} WHERE workspace_id = ? ORDER BY day`)
		.bind(workspaceId)
		.all<{ day: string; figures: string }>();
	const byDay = new Map<string, Record<string, unknown>>();
	for (const row of results) {
		const figures = Object.entries(JSON.parse(row.figures) as Record<string, unknown>);
		byDay.set(row.day, { ...byDay.get(row.day), ...Object.fromEntries(figures.map(([id, f]) => [named.get(id), f])) });
	}
	return [...byDay].map(([day, figures]) => ({
		day,
		figures: Object.fromEntries(Object.entries(figures).sort(([a], [b]) => a.localeCompare(b))),
	}));
}

const rowsRead = (res: Response) => Number(/d1-rows;desc="(\d+)/.exec(res.headers.get('Server-Timing') ?? '')?.[1]);

describe('the conversations report from its rollups', () => {
	for (const timeZone of ['America/New_York', 'Asia/Kolkata', 'UTC']) {
		it(`answers as the scan of every conversation did, in ${timeZone}`, async () => {
			// 1–21 March 2026 holds New York's spring shift (8 March); conversations also fall just outside.
			const seeded = await seedWorkspaceYear(timeZone, Date.parse('2026-02-28T00:00:00Z'), 23, 400);
			const range = { from: '2026-03-01', to: '2026-03-21' };
			const all = await expectSameAsScan(seeded, timeZone, range);
			expect(all.conversations).toBeGreaterThan(300);
			for (const filters of [
				{ channel: 'api' },
				{ assigneeId: seeded.operators[0] },
				{ groupId: seeded.group, utmCampaign: 'spring' },
				{ click: 'search' as const },
				{ click: 'none' as const, utmSource: 'facebook' },
				{ utmMedium: 'cpc', channel: 'widget', assigneeId: seeded.operators[1] },
				{ channel: 'email' },
			]) {
				await expectSameAsScan(seeded, timeZone, { ...range, ...filters });
			}
			await expectSameAsScan(seeded, timeZone, { from: '2026-03-08', to: '2026-03-08' });
		});
	}

	it('stays right through every kind of write, as a rebuild from the conversations would be', async () => {
		const timeZone = 'America/New_York';
		const seeded = await seedWorkspaceYear(timeZone, Date.parse('2026-03-01T00:00:00Z'), 10, 60, 11);
		const range = { from: '2026-03-01', to: '2026-03-10' };
		await expectSameAsScan(seeded, timeZone, range);
		const [a, b, c, d, e] = seeded.ids as [string, string, string, string, string];
		const run = (query: string, ...values: unknown[]) =>
			env.DB.prepare(query)
				.bind(...values)
				.run();
		// Closed, reopened, closed again later; reassigned; its group removed; answered; moved across midnight.
		await run(`UPDATE conversations SET status = 'closed', status_changed_at = created_at + 90000 WHERE id = ?`, a);
		await run(`UPDATE conversations SET status = 'open', status_changed_at = created_at + 95000 WHERE id = ?`, b);
		await run(
			`UPDATE conversations SET status = 'closed', status_changed_at = status_changed_at + 7200000 WHERE id = ?`,
			b,
		);
		await run('UPDATE conversations SET assignee_id = ? WHERE id = ?', seeded.operators[1], c);
		await run('UPDATE conversations SET group_id = NULL WHERE group_id = ?', seeded.group);
		await run('UPDATE conversations SET first_response_at = created_at + 1500 WHERE id = ?', d);
		await run(
			'UPDATE conversations SET created_at = created_at + 86400000, utm_campaign = ? WHERE id = ?',
			'winter',
			e,
		);
		// A member's removal unassigns all theirs at once; a change the report does not count changes nothing.
		await run('UPDATE conversations SET assignee_id = NULL WHERE assignee_id = ?', seeded.operators[0]);
		await run(
			'UPDATE conversations SET updated_at = updated_at + 1, unread_by_operators = 3 WHERE workspace_id = ?',
			seeded.workspaceId,
		);
		await run('DELETE FROM conversations WHERE id = ?', seeded.ids[5]);
		// Handoffs: one arrives, one is removed, one moves to the next day.
		await run(
			"UPDATE messaging_handoffs SET conversation_id = 'conv_x' WHERE workspace_id = ? AND ref = 'R0000001'",
			seeded.workspaceId,
		);
		await run(
			"UPDATE messaging_handoffs SET conversation_id = NULL WHERE workspace_id = ? AND ref = 'R0000002'",
			seeded.workspaceId,
		);
		await run("DELETE FROM messaging_handoffs WHERE workspace_id = ? AND ref = 'R0000003'", seeded.workspaceId);
		await run(
			"UPDATE messaging_handoffs SET created_at = created_at + 86400000 WHERE workspace_id = ? AND ref = 'R0000004'",
			seeded.workspaceId,
		);
		await expectSameAsScan(seeded, timeZone, range);
		await expectSameAsScan(seeded, timeZone, { ...range, assigneeId: seeded.operators[1] });
		const stored = async () => [
			await storedDays(seeded.workspaceId, 'report_days'),
			await storedDays(seeded.workspaceId, 'report_handoff_days'),
		];
		const kept = await stored();
		expect(kept[1]?.length).toBeGreaterThan(0);
		await rebuildRollups(db, seeded.workspaceId, timeZone);
		expect(await stored()).toEqual(kept);
	});

	it('follows the API: a start, an assignment, a close, a reopen and a change of time zone', async () => {
		const { workspaceId, token, operatorId, conversationId } = await liveConversation();
		const other = await seedOperator(workspaceId, ['conversations:read']);
		const seeded = { token, workspaceId, operators: [operatorId], group: '', ids: [conversationId] };
		const today = new Date().toISOString().slice(0, 10);
		const range = { from: today, to: today };
		const patch = async (body: object) =>
			expect((await api(token, 'PATCH', `/v3/conversations/${conversationId}`, body)).status).toBe(200);
		expect((await expectSameAsScan(seeded, 'UTC', range)).conversations).toBe(1);
		await patch({ assigneeId: other.operatorId });
		await patch({ status: 'closed' });
		const closed = await expectSameAsScan(seeded, 'UTC', range);
		expect(closed.byStatus.find((s) => s.key === 'closed')?.count).toBe(1);
		expect(closed.byAssignee).toEqual([{ key: other.operatorId, name: 'Operator', count: 1 }]);
		expect(closed.resolution.count).toBe(1);
		await patch({ status: 'open', assigneeId: operatorId });
		const reopened = await expectSameAsScan(seeded, 'UTC', range);
		expect(reopened.resolution.count).toBe(0);
		expect(reopened.byAssignee).toEqual([{ key: operatorId, name: 'Operator', count: 1 }]);
		// Another zone: the next report rebuilds the rollups by day there, and the triggers keep them so.
		expect(
			(await api(token, 'PUT', '/v3/widget/settings', { businessHours: { timeZone: 'Pacific/Kiritimati' } })).status,
		).toBe(200);
		const ahead = { from: new Date(Date.now() + 14 * HOUR).toISOString().slice(0, 10) };
		await expectSameAsScan(seeded, 'Pacific/Kiritimati', { ...ahead, to: ahead.from });
		await patch({ status: 'closed' });
		await expectSameAsScan(seeded, 'Pacific/Kiritimati', { ...ahead, to: ahead.from });
	});

	it('reads rows by day and dimension set, none by conversation, for ten times the conversations', async () => {
		const start = Date.parse('2026-04-01T00:00:00Z');
		const range = 'from=2026-04-01&to=2026-04-14';
		const small = await seedWorkspaceYear('UTC', start, 14, 150, 3);
		const large = await seedWorkspaceYear('UTC', start, 14, 1500, 3);
		const reads = async (seeded: Seeded) => {
			await served(seeded.token, {}); // the first report may rebuild; the next are what a report costs
			return rowsRead(await api(seeded.token, 'GET', `/v3/reports/conversations?${range}`));
		};
		const sets = async (seeded: Seeded) =>
			(await env.DB.prepare('SELECT count(*) AS n FROM report_dimension_sets WHERE workspace_id = ?')
				.bind(seeded.workspaceId)
				.first<number>('n')) ?? 0;
		const [few, many] = [await reads(small), await reads(large)];
		// Up to 8 rows per day and the workspace's dimension sets (which ten times the conversations fill more of), and
		// a few for the token, the settings and the names: nothing per conversation.
		const [smallSets, largeSets] = [await sets(small), await sets(large)];
		expect(few).toBeLessThanOrEqual(8 * 14 + smallSets + 20);
		expect(many).toBeLessThanOrEqual(8 * 14 + largeSets + 20);
		expect(many).toBeLessThan(1500 / 2);
	});
});

describe('report_duration_buckets', () => {
	it('holds the stated bounds: 0, then 1 s × 2^(k/16), each at most 4.5% above the last', async () => {
		const { results } = await env.DB.prepare(
			'SELECT lower_ms, bucket FROM report_duration_buckets ORDER BY lower_ms',
		).all<{
			lower_ms: number;
			bucket: number;
		}>();
		expect(results).toHaveLength(418);
		expect(results.slice(0, 3)).toEqual([
			{ lower_ms: 0, bucket: 0 },
			{ lower_ms: 1000, bucket: 1 },
			{ lower_ms: 1044, bucket: 2 },
		]);
		results.forEach((row, i) => {
			expect(row.bucket).toBe(i);
			if (i > 0) expect(Math.abs(row.lower_ms - 1000 * 2 ** ((i - 1) / 16))).toBeLessThanOrEqual(1);
			if (i > 1) expect(row.lower_ms / (results[i - 1]?.lower_ms ?? 1)).toBeLessThanOrEqual(1.045);
		});
		expect(results.at(-1)?.lower_ms).toBeGreaterThan(400 * 86_400_000);
	});
});
