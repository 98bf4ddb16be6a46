import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
	HANDOFF_REF_PATTERN,
	handoffRefIn,
	handoffText,
	newHandoffRef,
	normalizeHandoffRef,
} from '../src/protocol/handoff-ref';
import {
	api,
	awayFromMinuteBoundary,
	expectError,
	randomIp,
	seedOperator,
	seedWorkspace,
	startVisitor,
	widgetApi,
} from './factories';

interface Handoff {
	ref: string;
	channel: string;
	origin: Record<string, string>;
	createdAt: string;
}

const CAMPAIGN = { utmSource: 'google', utmCampaign: 'spring', gclid: 'Cj0KCQ' };

function postHandoff(workspaceId: string, body: unknown, session?: string, ip = randomIp()) {
	return widgetApi('POST', `/widget/${workspaceId}/handoffs`, body, session, { 'CF-Connecting-IP': ip });
}

async function storedRows(workspaceId: string) {
	const { results } = await env.DB.prepare(
		'SELECT ref, channel, origin, session_id FROM messaging_handoffs WHERE workspace_id = ?',
	)
		.bind(workspaceId)
		.all<{ ref: string; channel: string; origin: string; session_id: string | null }>();
	return results;
}

describe('POST /widget/{workspaceId}/handoffs', () => {
	it('records a reference with its origin (201), and answers a repeat with the stored one, unchanged (200)', async () => {
		const { workspaceId } = await seedWorkspace();
		const ref = newHandoffRef();
		const first = await postHandoff(workspaceId, { ref, channel: 'whatsapp', origin: CAMPAIGN });
		expect(first.status).toBe(201);
		const created = (await first.json()) as Handoff;
		expect(created).toMatchObject({ ref, channel: 'whatsapp', origin: CAMPAIGN });

		const repeat = await postHandoff(workspaceId, { ref, channel: 'whatsapp', origin: { utmSource: 'bing' } });
		expect(repeat.status).toBe(200);
		expect(await repeat.json()).toEqual(created);
		const rows = await storedRows(workspaceId);
		expect(rows).toHaveLength(1);
		expect(JSON.parse(rows[0]?.origin ?? '')).toEqual(CAMPAIGN);
	});

	it("links the visitor's session, and keeps the session's origin when the click brings none", async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId, { utmSource: 'facebook', fbclid: 'IwAR0' });
		const res = await postHandoff(workspaceId, { ref: newHandoffRef(), channel: 'whatsapp' }, visitor.session);
		expect(res.status).toBe(201);
		expect(((await res.json()) as Handoff).origin).toEqual({ utmSource: 'facebook', fbclid: 'IwAR0' });
		expect((await storedRows(workspaceId))[0]?.session_id).toBe(visitor.visitorId);
	});

	it('works without a session, but refuses a session that does not verify', async () => {
		const { workspaceId } = await seedWorkspace();
		const anonymous = await postHandoff(workspaceId, { ref: newHandoffRef(), channel: 'whatsapp' });
		expect(anonymous.status).toBe(201);
		expect(((await anonymous.json()) as Handoff).origin).toEqual({});
		await expectError(await postHandoff(workspaceId, { ref: newHandoffRef(), channel: 'whatsapp' }, 'forged'), 401);
		expect(await storedRows(workspaceId)).toHaveLength(1);
	});

	it.each([
		['a lower-case ref', { ref: 'abcd2345', channel: 'whatsapp' }],
		['a 7-character ref', { ref: 'ABCD234', channel: 'whatsapp' }],
		['a ref with a U', { ref: 'ABCDU345', channel: 'whatsapp' }],
		['a ref with an I', { ref: 'ABCDI345', channel: 'whatsapp' }],
		['no ref', { channel: 'whatsapp' }],
		['another channel', { ref: 'ABCD2345', channel: 'telegram' }],
		['bad origin data', { ref: 'ABCD2345', channel: 'whatsapp', origin: { landingUrl: 'javascript:alert(1)' } }],
		['an unknown field', { ref: 'ABCD2345', channel: 'whatsapp', phone: '5511999999999' }],
	])('refuses %s with 422 and stores nothing', async (_, body) => {
		const { workspaceId } = await seedWorkspace();
		const res = await postHandoff(workspaceId, body);
		expect((await expectError(res, 422)).error).toBe('Unprocessable Entity');
		expect(await storedRows(workspaceId)).toEqual([]);
	});

	it('answers 404 for an unknown workspace and stores nothing', async () => {
		const res = await postHandoff('ws_missing', { ref: 'ABCD2345', channel: 'whatsapp', origin: CAMPAIGN });
		await expectError(res, 404);
		expect(await storedRows('ws_missing')).toEqual([]);
	});

	it('counts against the per-IP session budget', async () => {
		const { workspaceId } = await seedWorkspace();
		const ip = randomIp();
		await awayFromMinuteBoundary();
		// WIDGET_SESSIONS_PER_IP is 30 in wrangler.toml.
		for (let i = 0; i < 30; i++) {
			expect(
				(await postHandoff(workspaceId, { ref: newHandoffRef(), channel: 'whatsapp' }, undefined, ip)).status,
			).toBe(201);
		}
		const over = await postHandoff(workspaceId, { ref: newHandoffRef(), channel: 'whatsapp' }, undefined, ip);
		await expectError(over, 429);
		expect(await storedRows(workspaceId)).toHaveLength(30);
	});
});

describe('GET /v3/widget/handoffs/{ref}', () => {
	it('returns the origin recorded under the reference, reading a retyped one leniently', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const ref = 'B0A1D2E3';
		await postHandoff(workspaceId, { ref, channel: 'whatsapp', origin: CAMPAIGN });
		const res = await api(token, 'GET', `/v3/widget/handoffs/${ref}`);
		expect(res.status).toBe(200);
		const found = (await res.json()) as Handoff;
		expect(found).toMatchObject({ ref, channel: 'whatsapp', origin: CAMPAIGN });
		expect(Date.parse(found.createdAt)).toBeGreaterThan(Date.now() - 60_000);
		// Lower case, O for 0, l for 1: the same reference.
		expect(await (await api(token, 'GET', '/v3/widget/handoffs/bOald2e3')).json()).toEqual(found);
	});

	it('answers 404 for a reference of another workspace or none at all', async () => {
		const mine = await seedWorkspace();
		const ref = newHandoffRef();
		await postHandoff(mine.workspaceId, { ref, channel: 'whatsapp', origin: CAMPAIGN });
		const stranger = await seedWorkspace();
		await expectError(await api(stranger.token, 'GET', `/v3/widget/handoffs/${ref}`), 404);
		await expectError(await api(mine.token, 'GET', '/v3/widget/handoffs/ZZZZZZZZ'), 404);
		await expectError(await api(mine.token, 'GET', '/v3/widget/handoffs/ABCDU345'), 404);
	});

	it('refuses a malformed reference with 422, and needs conversations:read', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await expectError(await api(token, 'GET', '/v3/widget/handoffs/ABC'), 422);
		await expectError(await api(token, 'GET', '/v3/widget/handoffs/ABCD-345'), 422);
		const sender = await seedOperator(workspaceId, ['messages:send']);
		await expectError(await api(sender.token, 'GET', '/v3/widget/handoffs/ABCD2345'), 403);
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(reader.token, 'GET', '/v3/widget/handoffs/ABCD2345'), 404);
	});
});

describe('handoff references (src/protocol/handoff-ref.ts)', () => {
	it('makes 8-character references of the unambiguous alphabet', () => {
		const refs = Array.from({ length: 200 }, newHandoffRef);
		for (const ref of refs) expect(ref).toMatch(HANDOFF_REF_PATTERN);
		expect(new Set(refs).size).toBe(200);
	});

	it.each([
		['Olá! Quero saber mais', 'ABCD2345', 'Olá! Quero saber mais (ref ABCD2345)'],
		['  Hi  ', 'ABCD2345', 'Hi (ref ABCD2345)'],
		['', 'ABCD2345', '(ref ABCD2345)'],
	])('appends the reference to %j', (prefilled, ref, text) => {
		expect(handoffText(prefilled, ref)).toBe(text);
	});

	it.each([
		['Olá! Quero saber mais (ref ABCD2345)', 'ABCD2345'],
		['hi (REF abcd2345) thanks', 'ABCD2345'],
		['ref B0AlD2E3', 'B0A1D2E3'],
		['ref ABCDU345', null],
		['preference ABCD2345', null],
		['no reference here', null],
	])('finds the reference in %j', (text, ref) => {
		expect(handoffRefIn(text)).toBe(ref);
	});

	it('normalizes what a person may retype', () => {
		expect(normalizeHandoffRef('abcdio12')).toBe('ABCD1012');
		expect(normalizeHandoffRef('ABCD234')).toBeNull();
	});
});
