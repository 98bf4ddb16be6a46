import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { type conversations, groups, messagingHandoffs } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import {
	api,
	db,
	expectError,
	liveConversation,
	reply,
	seedConversation,
	seedOperator,
	seedWorkspace,
} from './factories';

interface Report {
	conversations: number;
	byStatus: Array<{ key: string; count: number }>;
	byChannel: Array<{ key: string; count: number }>;
	byAssignee: Array<{ key: string | null; name: string | null; count: number }>;
	byGroup: Array<{ key: string | null; name: string | null; count: number }>;
	byOrigin: Record<'click' | 'utmSource' | 'utmMedium' | 'utmCampaign', Array<{ key: string | null; count: number }>>;
	firstResponse: {
		count: number;
		medianSeconds: number | null;
		p90Seconds: number | null;
		averageSeconds: number | null;
	};
	resolution: { count: number; medianSeconds: number | null; p90Seconds: number | null; averageSeconds: number | null };
	handoffs: { total: number; arrived: number } & Record<
		'click' | 'utmSource' | 'byChannel',
		Array<{ key: string | null; count: number }>
	>;
	series: Array<{ date: string; conversations: number; closed: number; handoffs: number }>;
}

/** São Paulo is UTC−3 all year: a local time and its instant. */
const local = (at: string) => Date.parse(`${at}:00-03:00`);
const S = 1000;

/**
 * The fixture, in São Paulo time, over 1–3 March 2026. Its answers below are worked out by hand:
 * - c1 03-01 10:00 widget open, A, G1, google/cpc/spring + gclid, first response after 60 s
 * - c2 03-01 23:30 widget closed after 3600 s, A, google/cpc/spring + gclid, response 120 s (03-02 in UTC)
 * - c3 03-02 00:30 api closed after 7200 s, B, G1, facebook/social/spring + fbclid, response 30 s
 * - c4 03-02 12:00 widget pending, nobody, no origin, no response
 * - c5 03-03 09:00 widget closed after 600 s, B, newsletter/email, response 600 s
 * - outside: 02-28 23:59 and 03-04 00:00 here, and one in another workspace
 */
async function seedFixture() {
	const { token, workspaceId } = await seedWorkspace();
	expect(
		(await api(token, 'PUT', '/v3/widget/settings', { businessHours: { timeZone: 'America/Sao_Paulo' } })).status,
	).toBe(200);
	const a = await seedOperator(workspaceId, ['conversations:read']);
	const b = await seedOperator(workspaceId, ['conversations:read']);
	const g1 = newId('grp');
	await db.insert(groups).values({ id: g1, workspaceId, name: 'Sales', createdAt: Date.now() });
	const google = { utmSource: 'google', utmMedium: 'cpc', utmCampaign: 'spring', gclid: 'g-1' };
	const conversation = (at: number, fields: Partial<typeof conversations.$inferInsert>) =>
		seedConversation(workspaceId, { statusChangedAt: at, ...fields }, at);
	const c1 = local('2026-03-01T10:00');
	await conversation(c1, { assigneeId: a.operatorId, groupId: g1, ...google, firstResponseAt: c1 + 60 * S });
	const c2 = local('2026-03-01T23:30');
	await conversation(c2, {
		status: 'closed',
		statusChangedAt: c2 + 3600 * S,
		assigneeId: a.operatorId,
		...google,
		firstResponseAt: c2 + 120 * S,
	});
	const c3 = local('2026-03-02T00:30');
	await conversation(c3, {
		channel: 'api',
		status: 'closed',
		statusChangedAt: c3 + 7200 * S,
		assigneeId: b.operatorId,
		groupId: g1,
		utmSource: 'facebook',
		utmMedium: 'social',
		utmCampaign: 'spring',
		fbclid: 'f-1',
		firstResponseAt: c3 + 30 * S,
	});
	await conversation(local('2026-03-02T12:00'), { status: 'pending' });
	const c5 = local('2026-03-03T09:00');
	await conversation(c5, {
		status: 'closed',
		statusChangedAt: c5 + 600 * S,
		assigneeId: b.operatorId,
		utmSource: 'newsletter',
		utmMedium: 'email',
		firstResponseAt: c5 + 600 * S,
	});
	await conversation(local('2026-02-28T23:59'), { ...google });
	await conversation(local('2026-03-04T00:00'), { ...google });
	const other = await seedWorkspace();
	await seedConversation(other.workspaceId, { ...google }, local('2026-03-02T10:00'));
	const handoff = (ref: string, at: string, origin: Record<string, string>, conversationId: string | null = null) =>
		db
			.insert(messagingHandoffs)
			.values({ workspaceId, ref, channel: 'whatsapp', origin, createdAt: local(at), conversationId });
	// This one arrived: its customer wrote to the WhatsApp number with its reference.
	await handoff(
		'AAAAAAA1',
		'2026-03-01T15:00',
		{ utmSource: 'google', utmCampaign: 'spring', gclid: 'g-2' },
		'conv_arrived',
	);
	await handoff('AAAAAAA2', '2026-03-02T08:00', {});
	await handoff('AAAAAAA3', '2026-03-05T08:00', { utmSource: 'google', gclid: 'g-3' });
	return { token, workspaceId, a: a.operatorId, b: b.operatorId, g1 };
}

async function report(token: string, query: string): Promise<Report> {
	const res = await api(token, 'GET', `/v3/reports/conversations?${query}`);
	expect(res.status, await res.clone().text()).toBe(200);
	return (await res.json()) as Report;
}

const range = 'from=2026-03-01&to=2026-03-03';
const sorted = <T extends { key: string | null }>(list: T[]) =>
	[...list].sort((x, y) => String(x.key).localeCompare(String(y.key)));

describe('GET /v3/reports/conversations', () => {
	it('matches the figures worked out by hand, by day in the workspace time zone', async () => {
		const { token, a, b, g1 } = await seedFixture();
		const all = await report(token, range);
		expect(all.conversations).toBe(5);
		expect(all.byStatus).toEqual([
			{ key: 'open', count: 1 },
			{ key: 'pending', count: 1 },
			{ key: 'closed', count: 3 },
		]);
		expect(all.byChannel).toEqual([
			{ key: 'widget', count: 4 },
			{ key: 'api', count: 1 },
		]);
		expect(sorted(all.byAssignee)).toEqual(
			sorted([
				{ key: a, name: 'Operator', count: 2 },
				{ key: b, name: 'Operator', count: 2 },
				{ key: null, name: null, count: 1 },
			]),
		);
		expect(all.byGroup).toEqual([
			{ key: null, name: null, count: 3 },
			{ key: g1, name: 'Sales', count: 2 },
		]);
		expect(all.byOrigin.click).toEqual([
			{ key: 'none', count: 2 },
			{ key: 'search', count: 2 },
			{ key: 'social', count: 1 },
		]);
		expect(sorted(all.byOrigin.utmSource)).toEqual(
			sorted([
				{ key: 'google', count: 2 },
				{ key: 'facebook', count: 1 },
				{ key: 'newsletter', count: 1 },
				{ key: null, count: 1 },
			]),
		);
		expect(all.byOrigin.utmCampaign).toEqual([
			{ key: 'spring', count: 3 },
			{ key: null, count: 2 },
		]);
		// Responses 30, 60, 120, 600 s: nearest rank 2 of 4 is the median, rank 4 the 90th percentile.
		expect(all.firstResponse).toEqual({ count: 4, medianSeconds: 60, p90Seconds: 600, averageSeconds: 202.5 });
		// Resolutions 600, 3600, 7200 s.
		expect(all.resolution).toEqual({ count: 3, medianSeconds: 3600, p90Seconds: 7200, averageSeconds: 3800 });
		expect(all.series).toEqual([
			{ date: '2026-03-01', conversations: 2, closed: 1, handoffs: 1 },
			{ date: '2026-03-02', conversations: 2, closed: 1, handoffs: 1 },
			{ date: '2026-03-03', conversations: 1, closed: 1, handoffs: 0 },
		]);
		expect(all.handoffs).toMatchObject({
			total: 2,
			arrived: 1,
			byChannel: [{ key: 'whatsapp', count: 2 }],
			click: [
				{ key: 'none', count: 1 },
				{ key: 'search', count: 1 },
			],
		});
	});

	it('narrows every figure by origin, channel and group', async () => {
		const { token, g1 } = await seedFixture();
		const google = await report(token, `${range}&utmSource=google`);
		expect(google.conversations).toBe(2);
		expect(google.byStatus.map((s) => s.count)).toEqual([1, 0, 1]);
		expect(google.firstResponse).toEqual({ count: 2, medianSeconds: 60, p90Seconds: 120, averageSeconds: 90 });
		expect(google.resolution).toMatchObject({ count: 1, medianSeconds: 3600 });
		expect(google.handoffs.total).toBe(1);
		expect(google.handoffs.arrived).toBe(1);
		expect(google.series.map((d) => [d.conversations, d.handoffs])).toEqual([
			[2, 1],
			[0, 0],
			[0, 0],
		]);

		const social = await report(token, `${range}&click=social`);
		expect(social.conversations).toBe(1);
		expect(social.byOrigin.utmSource).toEqual([{ key: 'facebook', count: 1 }]);
		expect(social.handoffs.total).toBe(0);
		const none = await report(token, `${range}&click=none`);
		expect(none.conversations).toBe(2);
		expect(none.handoffs.total).toBe(1);
		expect(none.handoffs.arrived).toBe(0);
		const search = await report(token, `${range}&click=search&utmCampaign=spring`);
		expect(search.conversations).toBe(2);
		expect(search.handoffs.total).toBe(1);

		expect((await report(token, `${range}&channel=api`)).conversations).toBe(1);
		const sales = await report(token, `${range}&groupId=${g1}`);
		expect(sales.conversations).toBe(2);
		expect(sales.resolution).toMatchObject({ count: 1, medianSeconds: 7200 });
	});

	it('exports the same figures as CSV, neutralising what a spreadsheet would run', async () => {
		const { token, workspaceId } = await seedFixture();
		await seedConversation(workspaceId, { utmSource: '=HYPERLINK("x")' }, local('2026-03-02T09:00'));
		const res = await api(token, 'GET', `/v3/reports/conversations?${range}`, undefined, { Accept: 'text/csv' });
		expect(res.status).toBe(200);
		expect(res.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
		expect(res.headers.get('Content-Disposition')).toBe(
			'attachment; filename="conversations-2026-03-01-2026-03-03.csv"',
		);
		const lines = (await res.text()).split('\r\n');
		expect(lines[0]).toBe('section,key,name,value');
		expect(lines).toContain('total,conversations,,6');
		expect(lines).toContain('status,closed,,3');
		expect(lines).toContain('first_response,median_seconds,,60');
		expect(lines).toContain('day,2026-03-01,conversations,2');
		expect(lines).toContain('handoffs,total,,2');
		expect(lines).toContain('handoffs,arrived,,1');
		expect(lines).toContain('utm_source,"\'=HYPERLINK(""x"")",,1');
	});

	it('puts each conversation on its local day across a daylight-saving change', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { businessHours: { timeZone: 'America/New_York' } });
		// Clocks go from 02:00 to 03:00 on 8 March 2026: that day is 23 hours long.
		for (const at of [
			'2026-03-07T23:50:00-05:00',
			'2026-03-08T00:10:00-05:00',
			'2026-03-08T23:30:00-04:00',
			'2026-03-09T00:10:00-04:00',
			'2026-03-09T23:59:00-04:00',
			'2026-03-10T00:00:00-04:00',
		]) {
			await seedConversation(workspaceId, {}, Date.parse(at));
		}
		const dst = await report(token, 'from=2026-03-07&to=2026-03-09');
		expect(dst.series.map((d) => [d.date, d.conversations])).toEqual([
			['2026-03-07', 1],
			['2026-03-08', 2],
			['2026-03-09', 2],
		]);
		expect(dst.conversations).toBe(5);
	});

	it('refuses a range that is backwards, too long or not dates, and unknown filters', async () => {
		const { token } = await seedWorkspace();
		for (const query of [
			'from=2026-03-05&to=2026-03-01',
			'from=2025-01-01&to=2026-03-01',
			'from=2026-02-30&to=2026-03-01',
			'from=yesterday',
			'click=tv',
			'source=google',
		]) {
			await expectError(await api(token, 'GET', `/v3/reports/conversations?${query}`), 422);
		}
	});

	it('needs reports:view', async () => {
		const { workspaceId } = await seedFixture();
		const reader = await seedOperator(workspaceId, ['conversations:read', 'crm:access']);
		await expectError(await api(reader.token, 'GET', `/v3/reports/conversations?${range}`), 403);
		const analyst = await seedOperator(workspaceId, ['reports:view']);
		expect((await report(analyst.token, range)).conversations).toBe(5);
	});
});

describe('first response', () => {
	it("is the time of an operator's first message, kept when more follow", async () => {
		const { token, conversationId } = await liveConversation();
		const firstResponseAt = async () =>
			(
				await env.DB.prepare('SELECT first_response_at AS at FROM conversations WHERE id = ?')
					.bind(conversationId)
					.first<{ at: number | null }>()
			)?.at;
		expect(await firstResponseAt()).toBeNull();
		const first = await reply(token, conversationId, 'Hello, how can I help?');
		const stored = await env.DB.prepare('SELECT created_at AS at FROM messages WHERE id = ?')
			.bind(first.id)
			.first<{ at: number }>();
		await expect.poll(firstResponseAt).toBe(stored?.at);
		const second = await reply(token, conversationId, 'Anything else?');
		// Once D1 holds the second reply, the summary written with it has kept the first response.
		await expect
			.poll(async () => (await env.DB.prepare('SELECT 1 FROM messages WHERE id = ?').bind(second.id).first()) !== null)
			.toBe(true);
		expect(await firstResponseAt()).toBe(stored?.at);
	});
});
