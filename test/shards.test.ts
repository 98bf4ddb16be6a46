import { createScheduledController } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/passwords';
import { openDatabase } from '../src/db/client';
import { operatorPasswords, operators, workspaces } from '../src/db/schema';
import { emptiestShard, forgetPlacements, placeWorkspace, shardOf } from '../src/db/shards';
import { createWorkspace } from '../src/domain/platform/workspaces';
import { issueTokenFor } from '../src/domain/team/tokens';
import worker from '../src/index';
import { newId } from '../src/lib/ids';
import { deliver, lastMail } from './email-inbound-helpers';
import {
	api,
	consoleApi,
	consoleSignIn,
	publishedScenario,
	reply,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	storedTexts,
} from './factories';
import { uniquePhoneNumberId } from './whatsapp-helpers';

// The workers-shards project (vitest.config.ts) binds two shards, DB (also the directory) and DB_SHARD_2, and runs
// this file alone. Workspaces are created here as a deployment creates them, on the emptiest shard, or placed.
if (!env.DB_SHARD_2) throw new Error('test/shards.test.ts runs in the workers-shards project, which binds DB_SHARD_2.');
const SHARD_2: D1Database = env.DB_SHARD_2;

beforeAll(() => {
	forgetPlacements();
});

/** A workspace row of about `bytes` in `d1` (its name), so that it is the larger database of the two. */
async function fill(d1: D1Database, bytes: number): Promise<void> {
	const id = newId('ws');
	await d1
		.prepare('INSERT INTO workspaces (id, slug, name, created_at) VALUES (?, ?, ?, ?)')
		.bind(id, id.toLowerCase(), 'x'.repeat(bytes), Date.now())
		.run();
}

/** A workspace on the second shard, as `createWorkspace` places one, with an admin holding a token issued the usual way. */
async function createdWorkspace(name: string) {
	const workspaceId = newId('ws');
	await placeWorkspace(env, workspaceId, 'DB_SHARD_2');
	const d1 = SHARD_2;
	const now = Date.now();
	await openDatabase(d1)
		.insert(workspaces)
		.values({ id: workspaceId, slug: workspaceId.toLowerCase(), name, createdAt: now });
	const operatorId = newId('op');
	await openDatabase(d1)
		.insert(operators)
		.values({
			id: operatorId,
			workspaceId,
			email: `${operatorId.toLowerCase()}@acme.test`,
			name: 'Admin',
			permissions: ['admin'],
			createdAt: now,
		});
	const { token } = await issueTokenFor(env, openDatabase(d1), workspaceId, operatorId);
	return { workspaceId, shard: 'DB_SHARD_2', token, operatorId };
}

/** How many rows of `table` belong to `workspaceId` in the database `d1`. */
async function rowsIn(d1: D1Database, table: string, workspaceId: string): Promise<number> {
	const row = await d1.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE workspace_id = ?`).bind(workspaceId).first();
	return Number(row?.n ?? 0);
}

describe('placing a new workspace', () => {
	it('puts it on the shard with the fewest bytes, and the directory says where', async () => {
		await fill(SHARD_2, 300_000);
		const first = await createWorkspace(env, { name: 'First', slug: 'first' });
		expect(first.shard).toBe('DB');
		await fill(env.DB, 600_000);
		expect(await emptiestShard(env)).toBe('DB_SHARD_2');
		const second = await createWorkspace(env, { name: 'Second', slug: 'second' });
		expect(second.shard).toBe('DB_SHARD_2');
		forgetPlacements();
		expect(await shardOf(env, first.workspaceId)).toBe('DB');
		expect(await shardOf(env, second.workspaceId)).toBe('DB_SHARD_2');
		// The workspace's row is in its shard only.
		const inShard = await SHARD_2.prepare('SELECT id FROM workspaces WHERE id = ?').bind(second.workspaceId).first();
		const inDirectory = await env.DB.prepare('SELECT id FROM workspaces WHERE id = ?').bind(second.workspaceId).first();
		expect(inShard?.id).toBe(second.workspaceId);
		expect(inDirectory).toBeNull();
	});
});

describe('a workspace on the second shard', () => {
	it("serves the API, the widget and the team's replies from its shard, and keeps its rows there", async () => {
		const far = await createdWorkspace('Far');
		expect(far.shard).toBe('DB_SHARD_2');
		// The token's hash routes to the workspace through the directory; its row is in the shard.
		expect(await rowsIn(SHARD_2, 'api_tokens', far.workspaceId)).toBe(1);
		expect(await rowsIn(env.DB, 'api_tokens', far.workspaceId)).toBe(0);

		const tag = await api(far.token, 'POST', '/v3/tags', { name: 'vip' });
		expect(tag.status).toBe(201);
		const tags = (await (await api(far.token, 'GET', '/v3/tags')).json()) as { data: Array<{ name: string }> };
		expect(tags.data.map((t) => t.name)).toEqual(['vip']);

		const visitor = await startVisitor(far.workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello from far away');
		await reply(far.token, conversationId, 'Hello back');
		expect(await storedTexts(far.token, conversationId)).toEqual(['Hello from far away', 'Hello back']);

		for (const table of ['tags', 'contacts', 'conversations', 'visitor_sessions']) {
			expect(await rowsIn(SHARD_2, table, far.workspaceId), table).toBeGreaterThan(0);
			expect(await rowsIn(env.DB, table, far.workspaceId), table).toBe(0);
		}
		// The rooms' copies of the messages, and the events the events consumer records, land in the shard too.
		await expect.poll(() => rowsIn(SHARD_2, 'messages', far.workspaceId)).toBe(2);
		await expect.poll(() => rowsIn(SHARD_2, 'events', far.workspaceId)).toBeGreaterThan(0);
		expect(await rowsIn(env.DB, 'messages', far.workspaceId)).toBe(0);
		expect(await rowsIn(env.DB, 'events', far.workspaceId)).toBe(0);
	});

	it("is invisible to a workspace on the other shard, and the other's to it", async () => {
		const far = await createdWorkspace('Far');
		const near = await seedWorkspace();
		const visitor = await startVisitor(far.workspaceId);
		const farConversation = await startVisitorConversation(visitor, 'Private');
		expect((await api(near.token, 'GET', `/v3/conversations/${farConversation}`)).status).toBe(404);
		const nearList = (await (await api(near.token, 'GET', '/v3/conversations')).json()) as { data: unknown[] };
		expect(nearList.data).toEqual([]);
		const nearVisitor = await startVisitor(near.workspaceId);
		const nearConversation = await startVisitorConversation(nearVisitor, 'Mine');
		expect((await api(far.token, 'GET', `/v3/conversations/${nearConversation}`)).status).toBe(404);
	});
});

describe('what arrives without a workspace, for a workspace on the second shard', () => {
	it("signs its member in by e-mail and password, and the console's session reaches its data", async () => {
		const far = await createdWorkspace('Far');
		await openDatabase(SHARD_2)
			.insert(operatorPasswords)
			.values({
				operatorId: far.operatorId,
				workspaceId: far.workspaceId,
				hash: await hashPassword('correct horse battery'),
				updatedAt: Date.now(),
			});
		const session = await consoleSignIn(`${far.operatorId.toLowerCase()}@acme.test`, 'correct horse battery');
		expect(await rowsIn(SHARD_2, 'console_sessions', far.workspaceId)).toBe(1);
		expect(await rowsIn(env.DB, 'console_sessions', far.workspaceId)).toBe(0);
		const me = await consoleApi(session, 'GET', '/v3/auth/session');
		expect(me.status).toBe(200);
		expect(((await me.json()) as { workspace: { id: string } }).workspace.id).toBe(far.workspaceId);
	});

	it("answers Meta's verification of a number it connected, which the webhook's path names alone", async () => {
		const far = await createdWorkspace('Far');
		const connected = await api(far.token, 'POST', '/v3/whatsapp/numbers', {
			phoneNumberId: uniquePhoneNumberId(),
			businessAccountId: '102290129340398',
			accessToken: 'EAAGm0PX4ZCpsBAtokenvalue1234567890',
			appSecret: 'f1e2d3c4b5a6978812345678appsecret',
		});
		expect(connected.status).toBe(201);
		const { id, verifyToken } = (await connected.json()) as { id: string; verifyToken: string };
		const query = new URLSearchParams({
			'hub.mode': 'subscribe',
			'hub.verify_token': verifyToken,
			'hub.challenge': '4242',
		});
		const answer = await exports.default.fetch(new Request(`https://parley.test/whatsapp/${id}/webhook?${query}`));
		expect(answer.status).toBe(200);
		expect(await answer.text()).toBe('4242');
	});
});

describe('mail for a workspace on the second shard', () => {
	it('is posted into its conversation there, and its record moves there from the directory', async () => {
		const far = await createdWorkspace('Far');
		const inbox = `support-${far.workspaceId.slice(-8).toLowerCase()}@acme.example`;
		expect((await api(far.token, 'POST', '/v3/email/addresses', { address: inbox })).status).toBe(201);
		const raw = [
			'From: Ada <ada@customer.example>',
			`To: ${inbox}`,
			'Subject: Where is my order?',
			`Message-ID: <${newId('m')}@customer.example>`,
			'Content-Type: text/plain; charset=utf-8',
			'',
			'It has not arrived yet.',
		].join('\r\n');
		await deliver(raw, { from: 'ada@customer.example', to: inbox });
		const mail = await lastMail(far.token);
		expect(mail.status).toBe('posted');
		expect(await rowsIn(SHARD_2, 'inbound_mails', far.workspaceId)).toBe(1);
		const inDirectory = await env.DB.prepare('SELECT COUNT(*) AS n FROM inbound_mails').first();
		expect(inDirectory?.n).toBe(0);
		expect(await storedTexts(far.token, mail.conversationId ?? '')).toEqual(['It has not arrived yet.']);
	});
});

describe('what names its workspace only in its path or its signed token', () => {
	it("starts a scenario through its inbound webhook, called with the webhook's secret alone", async () => {
		const far = await createdWorkspace('Far');
		const { scenarioId, webhook } = await publishedScenario(far.token, {
			start: 'keep',
			steps: [{ id: 'keep', type: 'set_variables', values: { got: '{{ orderId }}' } }],
		});
		const call = await api(
			null,
			'POST',
			`/v3/workflows/webhook/${webhook.id}`,
			{ orderId: '7' },
			{
				'X-Webhook-Secret': webhook.secret,
			},
		);
		expect(call.status).toBe(202);
		const runs = await SHARD_2.prepare('SELECT status FROM scenario_runs WHERE scenario_id = ?').bind(scenarioId).all();
		expect(runs.results).toHaveLength(1);
		expect(await rowsIn(env.DB, 'scenario_runs', far.workspaceId)).toBe(0);
	});
});

describe("the minute's sweep", () => {
	it("works on every shard: an event left in the second shard's outbox is delivered and its row dropped", async () => {
		const far = await createdWorkspace('Far');
		const old = Date.now() - 10 * 60_000;
		const event = {
			id: newId('evt'),
			type: 'tag.created',
			workspaceId: far.workspaceId,
			occurredAt: new Date(old).toISOString(),
			actor: { kind: 'system', id: null },
			payload: { tag: { id: newId('tag'), name: 'swept' } },
		};
		await SHARD_2.prepare('INSERT INTO event_outbox (id, workspace_id, event, created_at) VALUES (?, ?, ?, ?)')
			.bind(event.id, far.workspaceId, JSON.stringify(event), old)
			.run();
		await worker.scheduled?.(createScheduledController({ cron: '* * * * *' }), env);
		expect(await rowsIn(SHARD_2, 'event_outbox', far.workspaceId)).toBe(0);
		// Delivered to the events Queue, whose consumer records it in the workspace's shard.
		await expect
			.poll(() => SHARD_2.prepare('SELECT id FROM events WHERE id = ?').bind(event.id).first())
			.toMatchObject({ id: event.id });
	});
});
