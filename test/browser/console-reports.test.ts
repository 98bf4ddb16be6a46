// The console's Reports page in a real Chromium against `wrangler dev`: the figures each chart draws (its table)
// equal the API's report for the filters in the URL, a changed filter changes both, the CSV export is the API's
// CSV for those filters, a campaign's results are the API's, and an e-mail campaign's recipients show where each
// mail stands. The fixture is built through the public API: widget visitors arriving from ad clicks and utm
// links, conversations made by the API in groups and channels.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, HOST_ORIGIN, workspace } from './harness';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	// A named locale: Chromium started under LANG=C says `en-US@posix`, which uPlot's number format rejects.
	context = await newContext({ locale: 'en-US' });
});

interface Bucket {
	key: string | null;
	count: number;
}
interface Durations {
	medianSeconds: number | null;
	p90Seconds: number | null;
	averageSeconds: number | null;
}
interface Report {
	from: string;
	to: string;
	conversations: number;
	byStatus: Bucket[];
	byChannel: Bucket[];
	byGroup: Bucket[];
	byAssignee: Bucket[];
	byOrigin: Record<'click' | 'utmSource' | 'utmCampaign', Bucket[]>;
	firstResponse: Durations;
	resolution: Durations;
	series: Array<{ date: string; conversations: number; closed: number; handoffs: number }>;
}

async function created<T>(token: string, path: string, body: unknown): Promise<T> {
	const answer = await api(baseUrl, token, 'POST', path, body);
	expect(answer.status, JSON.stringify(answer.body)).toBe(201);
	return answer.body as T;
}

/** A visitor landing on the shop from `origin` (utm values, an ad click id) who writes in through the widget. */
async function visitorWritesIn(workspaceId: string, origin: Record<string, string>, text: string): Promise<string> {
	const headers = { 'Content-Type': 'application/json', Origin: HOST_ORIGIN };
	const session = await fetch(`${baseUrl}/widget/${workspaceId}/sessions`, {
		method: 'POST',
		headers,
		body: JSON.stringify({ origin }),
	});
	expect(session.status).toBe(200);
	const { sessionToken } = (await session.json()) as { sessionToken: string };
	const started = await fetch(`${baseUrl}/widget/${workspaceId}/conversations`, {
		method: 'POST',
		headers: { ...headers, 'Parley-Session': sessionToken },
		body: JSON.stringify({ message: { text, clientMessageId: crypto.randomUUID() } }),
	});
	expect(started.status, await started.clone().text()).toBe(201);
	return ((await started.json()) as { conversation: { id: string } }).conversation.id;
}

/**
 * Workspace `n`'s fixture: five widget conversations from google (search-ad click), facebook (social-ad click),
 * a newsletter and nowhere, two by the API on other channels in a group; some answered, some closed.
 */
async function buildFixture(n: number) {
	const { token, workspaceId, operatorId } = workspace(n);
	const google = { utmSource: 'google', utmMedium: 'cpc', utmCampaign: 'spring', gclid: 'Cj0-spring' };
	const widget = [
		await visitorWritesIn(workspaceId, google, 'Do you ship tents to Porto?'),
		await visitorWritesIn(workspaceId, google, 'Is the Ridge 2 in stock?'),
		await visitorWritesIn(
			workspaceId,
			{ utmSource: 'facebook', utmMedium: 'social', utmCampaign: 'spring', fbclid: 'fb-1' },
			'Saw your ad, what sizes?',
		),
		await visitorWritesIn(workspaceId, { utmSource: 'newsletter', utmMedium: 'email' }, 'Discount code?'),
		await visitorWritesIn(workspaceId, {}, 'Opening hours?'),
	];
	const group = await created<{ id: string }>(token, '/v3/team/groups', { name: 'Sales', memberIds: [operatorId] });
	const byApi = [
		await created<{ id: string }>(token, '/v3/conversations', {
			contact: { name: 'Rita Lopes', email: `rita-${n}@example.com` },
			channel: 'whatsapp',
			groupId: group.id,
			assigneeId: operatorId,
			message: { text: 'Following up on your order', author: 'contact' },
		}),
		await created<{ id: string }>(token, '/v3/conversations', {
			contact: { name: 'Tomás Reis', email: `tomas-${n}@example.com` },
			channel: 'email',
			groupId: group.id,
			message: { text: 'Invoice question', author: 'contact' },
		}),
	].map((c) => c.id);
	for (const id of [widget[0], widget[2], byApi[0]])
		await created(token, '/v3/messages', { conversationId: id, text: 'Happy to help!' });
	for (const id of [widget[1], widget[2], byApi[1]]) {
		const closed = await api(baseUrl, token, 'PATCH', `/v3/conversations/${id}`, { status: 'closed' });
		expect(closed.status).toBe(200);
	}
	const contactIds: string[] = [];
	for (const id of widget) {
		const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${id}`);
		contactIds.push((body as { contactId: string }).contactId);
	}
	return { token, group: group.id, contactIds };
}

async function report(token: string, query: string): Promise<Report> {
	const { status, body } = await api(baseUrl, token, 'GET', `/v3/reports/conversations?${query}`);
	expect(status, JSON.stringify(body)).toBe(200);
	return body as Report;
}

/** The rows of the figures table captioned `caption`: each cell's `<data>` value, null where there is none. */
function figures(page: Page, caption: string): Promise<Array<Array<string | null>>> {
	return page
		.locator('table')
		.filter({ has: page.locator('caption', { hasText: new RegExp(`^${caption}$`) }) })
		.evaluate((table: HTMLTableElement) =>
			[...(table.tBodies[0]?.rows ?? [])].map((row) =>
				[...row.cells].map((cell) => cell.querySelector('data')?.value ?? null),
			),
		);
}

const rows = (buckets: Bucket[]) => buckets.map((b) => [b.key ?? '', String(b.count)]);
const times = (d: Durations) =>
	(
		[
			['median', d.medianSeconds],
			['p90', d.p90Seconds],
			['average', d.averageSeconds],
		] as const
	).map(([key, value]) => [key, value === null ? null : String(value)]);

/** What each chart's table should hold for `r`, by caption. */
function expected(r: Report): Record<string, Array<Array<string | null>>> {
	return {
		'Conversations by day': r.series.map((d) => [
			d.date,
			String(d.conversations),
			String(d.closed),
			String(d.handoffs),
		]),
		'By UTM source': rows(r.byOrigin.utmSource),
		'By UTM campaign': rows(r.byOrigin.utmCampaign),
		'By ad click': rows(r.byOrigin.click),
		'First response time': times(r.firstResponse),
		'Resolution time': times(r.resolution),
		'By status now': rows(r.byStatus),
		'By channel': rows(r.byChannel),
		'By group': rows(r.byGroup),
		'By assignee': rows(r.byAssignee),
	};
}

async function shown(page: Page, captions: string[]) {
	const tables: Record<string, Array<Array<string | null>>> = {};
	for (const caption of captions) tables[caption] = await figures(page, caption);
	return tables;
}

/** Polls until every chart's table holds the API's figures for `query` (they load after a filter changes). */
async function expectFiguresOf(page: Page, token: string, query: string) {
	const want = expected(await report(token, query));
	await expect.poll(() => shown(page, Object.keys(want)), { timeout: 10_000 }).toEqual(want);
	return want;
}

describe('the Reports page', () => {
	let fixture: Awaited<ReturnType<typeof buildFixture>>;
	beforeAll(async () => {
		fixture = await buildFixture(81);
	});

	it("draws the API's figures, and a changed filter changes both the URL and the figures", async () => {
		const { token } = fixture;
		const page = await consolePage(context, 81);
		await page.getByRole('link', { name: 'Reports' }).click();
		const all = await expectFiguresOf(page, token, '');
		// The fixture is there: a chart of nothing would match an empty report as well.
		expect(all['By ad click']).toEqual([
			['none', '4'],
			['search', '2'],
			['social', '1'],
		]);
		expect(await page.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed')).toBe('true');

		await page.getByLabel('Ad click', { exact: true }).selectOption({ label: 'Search ad' });
		await expect.poll(() => new URL(page.url()).searchParams.get('click')).toBe('search');
		const search = await expectFiguresOf(page, token, 'click=search');
		expect(search['By UTM source']).toEqual([['google', '2']]);

		await page.getByLabel('Ad click', { exact: true }).selectOption({ label: 'Any' });
		await page.getByLabel('UTM campaign', { exact: true }).fill('spring');
		await page.getByLabel('UTM campaign', { exact: true }).press('Enter');
		await expectFiguresOf(page, token, 'utmCampaign=spring');

		await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Sales' });
		// Nobody from the spring campaign wrote to Sales: the empty state, not charts of zeros.
		await page.getByText('No conversations in this range with these filters.').waitFor();
		expect(await page.locator('.chart').count()).toBe(0);
		await page.getByRole('button', { name: 'Clear filters' }).click();
		await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Sales' });
		await expectFiguresOf(page, token, `groupId=${fixture.group}`);
	});

	it('opens a linked report with its filters, and downloads the API’s CSV of it', async () => {
		const { token } = fixture;
		const page = await consolePage(context, 81);
		const { to } = await report(token, '');
		const from = new Date(Date.parse(to) - 6 * 86_400_000).toISOString().slice(0, 10);
		const query = `from=${from}&to=${to}&utmSource=google`;
		await page.goto(`${baseUrl}/console/reports?${query}`);
		const figuresShown = await expectFiguresOf(page, token, query);
		expect(figuresShown['Conversations by day']).toHaveLength(7);
		expect(await page.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')).toBe('true');
		expect(await page.getByLabel('UTM source', { exact: true }).inputValue()).toBe('google');

		const [download] = await Promise.all([
			page.waitForEvent('download'),
			page.getByRole('button', { name: 'Download CSV' }).first().click(),
		]);
		const csv = await fetch(`${baseUrl}/v3/reports/conversations?${query}`, {
			headers: { Authorization: `Bearer ${token}`, Accept: 'text/csv' },
		});
		expect(csv.status).toBe(200);
		expect(download.suggestedFilename()).toBe(`conversations-${from}-${to}.csv`);
		const saved = await download.createReadStream();
		const chunks: Buffer[] = [];
		for await (const chunk of saved) chunks.push(chunk as Buffer);
		const text = Buffer.concat(chunks).toString('utf8');
		expect(text).toBe(await csv.text());
		expect(text).toContain('utm_source,google,,2');
	});

	it("shows a chosen campaign's results as the API reports them", async () => {
		const { token, contactIds } = fixture;
		const campaign = await created<{ id: string }>(token, '/v3/campaigns', {
			name: 'Spring sale',
			template: 'Hi {{ contact.name }}, the spring sale starts today!',
			audience: { kind: 'contacts', contactIds },
		});
		const send = await api(baseUrl, token, 'POST', `/v3/campaigns/${campaign.id}/send`, {});
		expect(send.status, JSON.stringify(send.body)).toBeLessThan(300);
		await expect
			.poll(
				async () =>
					((await api(baseUrl, token, 'GET', `/v3/campaigns/${campaign.id}`)).body as { status: string }).status,
				{
					timeout: 20_000,
				},
			)
			.toBe('sent');
		const page = await consolePage(context, 81);
		await page.getByRole('link', { name: 'Reports' }).click();
		await page.getByLabel('Campaign', { exact: true }).selectOption({ label: 'Spring sale' });
		await expect.poll(() => new URL(page.url()).searchParams.get('campaign')).toBe(campaign.id);
		const { body } = await api(baseUrl, token, 'GET', `/v3/reports/campaigns/${campaign.id}`);
		const r = body as Record<string, number>;
		expect(r.reach).toBe(contactIds.length);
		const steps = ['targeted', 'reach', 'failed', 'skipped', 'replies', 'conversations', 'dealsWon'];
		await expect.poll(() => figures(page, 'Results of Spring sale')).toEqual(steps.map((key) => [key, String(r[key])]));
	});

	it("lists an e-mail campaign's recipients with where each one's mail stands", async () => {
		const { token } = fixture;
		const sender = await api(baseUrl, token, 'PUT', '/v3/email/settings', {
			senderAddress: 'news@e2e-81.mail.example',
		});
		expect(sender.status, JSON.stringify(sender.body)).toBe(200);
		const ana = await created<{ id: string }>(token, '/v3/contacts', { name: 'Ana Lima', email: 'ana@example.com' });
		const caio = await created<{ id: string }>(token, '/v3/contacts', { name: 'Caio Reis', phone: '+5511912345678' });
		const campaign = await created<{ id: string }>(token, '/v3/campaigns', {
			name: 'Autumn letter',
			channel: 'email',
			subject: 'Autumn news for {{ contact.name }}',
			template: 'Hi {{ contact.name }}, the autumn sale starts today!',
			audience: { kind: 'contacts', contactIds: [ana.id, caio.id] },
		});
		const send = await api(baseUrl, token, 'POST', `/v3/campaigns/${campaign.id}/send`, {});
		expect(send.status, JSON.stringify(send.body)).toBeLessThan(300);
		// Wrangler's local Email Sending takes the mail: Ana's is sent; Caio, with no address, is skipped.
		await expect
			.poll(
				async () => {
					const { body } = await api(baseUrl, token, 'GET', `/v3/campaigns/${campaign.id}/recipients`);
					return (body as { data: Array<{ mail: { status: string } | null }> }).data.map((r) => r.mail?.status);
				},
				{ timeout: 20_000 },
			)
			.toContain('sent');

		const page = await consolePage(context, 81);
		await page.getByRole('link', { name: 'Reports' }).click();
		await page.getByLabel('Campaign', { exact: true }).selectOption({ label: 'Autumn letter' });
		const table = page.locator('.campaign-recipients table');
		const header = table.locator('thead th');
		await expect.poll(() => header.allTextContents()).toEqual(['Contact', 'Status', 'Mail', 'Sent', 'Replied']);
		const rowOf = (name: string) => page.getByTestId('campaign-recipient').filter({ hasText: name });
		await expect.poll(() => rowOf('Ana Lima').getByTestId('recipient-mail').textContent()).toBe('Sent');
		expect(await rowOf('Ana Lima').locator('.mail-status.sent').count()).toBe(1);
		expect(await rowOf('Ana Lima').getByRole('link', { name: 'Ana Lima' }).getAttribute('href')).toMatch(
			new RegExp(`/contacts/${ana.id}$`),
		);
		expect(await rowOf('Caio Reis').locator('td').nth(1).textContent()).toBe(
			'Skippedthe contact has no e-mail address',
		);
		expect(await rowOf('Caio Reis').getByTestId('recipient-mail').textContent()).toBe('—');
	});
});
