import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiLogs, whatsappNumbers } from '../src/db/schema';
import { api, db, expectError, seedOperator, seedWorkspace } from './factories';
import { uniquePhoneNumberId } from './whatsapp-helpers';

const ACCESS_TOKEN = 'EAAGm0PX4ZCpsBAtokenvalue1234567890';
const APP_SECRET = 'f1e2d3c4b5a6978812345678appsecret';

function connection(overrides: Record<string, unknown> = {}) {
	return {
		phoneNumberId: uniquePhoneNumberId(),
		businessAccountId: '102290129340398',
		accessToken: ACCESS_TOKEN,
		appSecret: APP_SECRET,
		displayPhoneNumber: '+1 555 078 3881',
		...overrides,
	};
}

interface NumberView {
	id: string;
	phoneNumberId: string;
	verifyToken?: string;
	webhookUrl: string;
	accessTokenSet: boolean;
	appSecretSet: boolean;
	graphUrl: string;
	graphVersion: string;
	messagesPerSecond: number;
}

function verify(id: string, query: Record<string, string>) {
	const params = new URLSearchParams(query);
	return exports.default.fetch(new Request(`https://parley.test/whatsapp/${id}/webhook?${params}`));
}

describe('POST /v3/whatsapp/numbers', () => {
	it('connects a number: the webhook URL and the verify token once, the secrets never', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/whatsapp/numbers', connection());
		expect(res.status).toBe(201);
		const text = await res.text();
		const created = JSON.parse(text) as NumberView;
		expect(created.webhookUrl).toBe(`https://parley.test/whatsapp/${created.id}/webhook`);
		expect(created.verifyToken).toMatch(/^[0-9A-Za-z]{32}$/);
		expect(created).toMatchObject({
			accessTokenSet: true,
			appSecretSet: true,
			graphUrl: 'https://graph.facebook.com',
			graphVersion: 'v25.0',
			messagesPerSecond: 80,
		});
		const answers = [text];
		answers.push(await (await api(token, 'GET', '/v3/whatsapp/numbers')).text());
		const one = await api(token, 'GET', `/v3/whatsapp/numbers/${created.id}`);
		const shown = (await one.clone().json()) as NumberView;
		expect(shown.verifyToken).toBeUndefined();
		answers.push(await one.text());
		answers.push(
			await (
				await api(token, 'PATCH', `/v3/whatsapp/numbers/${created.id}`, { accessToken: `${ACCESS_TOKEN}2` })
			).text(),
		);
		answers.push(await (await api(token, 'POST', `/v3/whatsapp/numbers/${created.id}/verify-token`)).text());
		for (const answer of answers) {
			expect(answer).not.toContain(ACCESS_TOKEN);
			expect(answer).not.toContain(APP_SECRET);
		}
		// Stored sealed, and the verify token only as its hash.
		const row = await db.select().from(whatsappNumbers).where(eq(whatsappNumbers.id, created.id)).get();
		expect(JSON.stringify(row)).not.toContain(ACCESS_TOKEN);
		expect(JSON.stringify(row)).not.toContain(APP_SECRET);
		expect(JSON.stringify(row)).not.toContain(created.verifyToken);
		// The API log has the requests, none of their secrets.
		await expect
			.poll(async () => (await db.select().from(apiLogs).where(eq(apiLogs.workspaceId, workspaceId))).length)
			.toBeGreaterThanOrEqual(5);
		const logged = JSON.stringify(await db.select().from(apiLogs).where(eq(apiLogs.workspaceId, workspaceId)));
		expect(logged).not.toContain(ACCESS_TOKEN);
		expect(logged).not.toContain(APP_SECRET);
	});

	it('refuses a phone number id another workspace connected (409)', async () => {
		const a = await seedWorkspace();
		const b = await seedWorkspace();
		const body = connection();
		expect((await api(a.token, 'POST', '/v3/whatsapp/numbers', body)).status).toBe(201);
		await expectError(await api(b.token, 'POST', '/v3/whatsapp/numbers', body), 409);
		expect(await db.select().from(whatsappNumbers).where(eq(whatsappNumbers.workspaceId, b.workspaceId))).toEqual([]);
	});

	it('refuses bad settings: a private Graph URL, a pace over 1,000, a version not like v25.0, a missing secret', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await expectError(
			await api(token, 'POST', '/v3/whatsapp/numbers', connection({ graphUrl: 'https://10.0.0.1' })),
			422,
		);
		await expectError(await api(token, 'POST', '/v3/whatsapp/numbers', connection({ messagesPerSecond: 1001 })), 422);
		await expectError(await api(token, 'POST', '/v3/whatsapp/numbers', connection({ graphVersion: '25' })), 422);
		await expectError(await api(token, 'POST', '/v3/whatsapp/numbers', connection({ appSecret: undefined })), 422);
		expect(await db.select().from(whatsappNumbers).where(eq(whatsappNumbers.workspaceId, workspaceId))).toEqual([]);
		const ok = await api(token, 'POST', '/v3/whatsapp/numbers', connection({ messagesPerSecond: 1000 }));
		expect(((await ok.json()) as NumberView).messagesPerSecond).toBe(1000);
	});

	it('is for admins only', async () => {
		const { workspaceId } = await seedWorkspace();
		const agent = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		await expectError(await api(agent.token, 'POST', '/v3/whatsapp/numbers', connection()), 403);
		await expectError(await api(agent.token, 'GET', '/v3/whatsapp/numbers'), 403);
	});
});

describe('/v3/whatsapp/numbers/{id} across workspaces', () => {
	it('is 404 for another workspace’s number on every route, and changes nothing', async () => {
		const a = await seedWorkspace();
		const b = await seedWorkspace();
		const created = (await (await api(a.token, 'POST', '/v3/whatsapp/numbers', connection())).json()) as NumberView;
		const path = `/v3/whatsapp/numbers/${created.id}`;
		await expectError(await api(b.token, 'GET', path), 404);
		await expectError(await api(b.token, 'PATCH', path, { messagesPerSecond: 1 }), 404);
		await expectError(await api(b.token, 'POST', `${path}/verify-token`), 404);
		await expectError(await api(b.token, 'DELETE', path), 404);
		const list = (await (await api(b.token, 'GET', '/v3/whatsapp/numbers')).json()) as { data: unknown[] };
		expect(list.data).toEqual([]);
		const still = (await (await api(a.token, 'GET', path)).json()) as NumberView;
		expect(still.messagesPerSecond).toBe(80);
		// The verify token still works: b's rotation did not happen.
		const challenge = await verify(created.id, {
			'hub.mode': 'subscribe',
			'hub.verify_token': created.verifyToken ?? '',
			'hub.challenge': '1158201444',
		});
		expect(challenge.status).toBe(200);
		expect((await api(a.token, 'DELETE', path)).status).toBe(204);
		await expectError(await api(a.token, 'GET', path), 404);
	});
});

describe('GET /whatsapp/{id}/webhook (Meta’s verification)', () => {
	it('answers the challenge as plain text for the verify token, 401 for anything else; rotation replaces it', async () => {
		const { token } = await seedWorkspace();
		const created = (await (await api(token, 'POST', '/v3/whatsapp/numbers', connection())).json()) as NumberView;
		const good = {
			'hub.mode': 'subscribe',
			'hub.verify_token': created.verifyToken ?? '',
			'hub.challenge': '1158201444',
		};
		const res = await verify(created.id, good);
		expect(res.status).toBe(200);
		expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
		expect(await res.text()).toBe('1158201444');
		await expectError(await verify(created.id, { ...good, 'hub.verify_token': 'wrong' }), 401);
		await expectError(await verify(created.id, { ...good, 'hub.mode': 'unsubscribe' }), 401);
		await expectError(await verify('wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', good), 401);
		const rotated = (await (
			await api(token, 'POST', `/v3/whatsapp/numbers/${created.id}/verify-token`)
		).json()) as NumberView;
		expect(rotated.verifyToken).not.toBe(created.verifyToken);
		await expectError(await verify(created.id, good), 401);
		const fresh = await verify(created.id, { ...good, 'hub.verify_token': rotated.verifyToken ?? '' });
		expect(await fresh.text()).toBe('1158201444');
	});
});
