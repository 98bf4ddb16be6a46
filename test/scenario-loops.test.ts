import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scenarioRuns } from '../src/db/schema';
import { driveRun, type RunnerContext } from '../src/domain/automation/scenarios/runner';
import { type ScenarioRunMessage, startRun } from '../src/domain/automation/scenarios/runs';
import { api, db, expectError, publishedScenario, seedOperator, seedWorkspace } from './factories';
import { openSocket } from './sockets';

/** A scenario that only keeps what it was sent. */
const echo = { start: 'keep', steps: [{ id: 'keep', type: 'set_variables', values: { got: '{{ n }}' } }] };

async function runsOf(scenarioId: string) {
	return db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId));
}

/** The `scenario.paused` events the events consumer recorded for a scenario: their payloads. */
async function pausedEvents(scenarioId: string) {
	const rows = await env.DB.prepare("SELECT payload FROM events WHERE type = 'scenario.paused'").all<{
		payload: string;
	}>();
	return rows.results
		.map((row) => JSON.parse(row.payload) as { scenario: { id: string } })
		.filter((payload) => payload.scenario.id === scenarioId);
}

function anonymous(path: string, body: unknown = {}, headers: Record<string, string> = {}) {
	return api(null, 'POST', path, body, headers);
}

afterEach(() => {
	vi.restoreAllMocks();
});

describe('a scenario that posts to its own inbound webhook', () => {
	it('stops within the hop limit: a bounded number of runs, the last inbound calls answered 508', async () => {
		const { token } = await seedWorkspace();
		const created = await api(token, 'POST', '/v3/scenarios', { name: 'Echo to itself', definition: echo });
		const { id: scenarioId } = (await created.json()) as { id: string };
		const hook = await api(token, 'POST', `/v3/scenarios/${scenarioId}/webhooks`, { name: 'Self', auth: 'open' });
		const { url } = (await hook.json()) as { url: string };
		// The scenario: two HTTP steps, each posting to the scenario's own webhook.
		const selfPosting = {
			start: 'first',
			steps: [
				{ id: 'first', type: 'http_request', method: 'POST', url, body: '{"n": 1}', next: 'second' },
				{ id: 'second', type: 'http_request', method: 'POST', url, body: '{"n": 2}' },
			],
		};
		expect((await api(token, 'PATCH', `/v3/scenarios/${scenarioId}`, { definition: selfPosting })).status).toBe(200);
		expect((await api(token, 'POST', `/v3/scenarios/${scenarioId}/publish`)).status).toBe(200);
		// The network, as the real Queue consumer reaches it: this deployment's host is the Worker itself.
		const answers: Array<{ hops: string | null; status: number }> = [];
		const network = globalThis.fetch;
		vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
			const request = new Request(input, init);
			if (new URL(request.url).host !== 'parley.test') return network(input, init);
			const response = await exports.default.fetch(request);
			answers.push({ hops: request.headers.get('Parley-Hops'), status: response.status });
			return response;
		});
		expect((await anonymous(new URL(url).pathname, { n: 0 })).status).toBe(202);
		// Every run recorded has finished: a run ends only after its calls were answered, so none is coming.
		await expect
			.poll(
				async () => {
					const runs = await runsOf(scenarioId);
					return runs.every((run) => run.status === 'succeeded' || run.status === 'failed');
				},
				{ timeout: 60_000, interval: 500 },
			)
			.toBe(true);
		const runs = await runsOf(scenarioId);
		// Hop 0 (the first call), then each run's two calls start two runs one hop further, up to the limit.
		const perHop = new Map<number, number>();
		for (const run of runs) perHop.set(run.hops, (perHop.get(run.hops) ?? 0) + 1);
		expect(Object.fromEntries(perHop)).toEqual({ 0: 1, 1: 2, 2: 4, 3: 8, 4: 16 });
		const refused = answers.filter((a) => a.status === 508);
		expect(refused.length).toBe(16);
		expect(refused.every((a) => a.hops === '5')).toBe(true);
		const last = runs.filter((run) => run.hops === 4);
		expect(last.every((run) => run.status === 'failed' && run.error?.includes('508'))).toBe(true);
		// The hop limit stopped it, not the breaker.
		const scenario = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}`)).json()) as { paused: unknown };
		expect(scenario.paused).toBeNull();
	}, 120_000);
});

describe('POST /v3/workflows/webhook/{webhook_id} with Parley-Hops', () => {
	it('refuses a call at the hop limit with 508 and records nothing; below it, the run keeps its count', async () => {
		const { token } = await seedWorkspace();
		const { scenarioId, webhook } = await publishedScenario(token, echo, { auth: 'open' });
		const path = `/v3/workflows/webhook/${webhook.id}`;
		const refused = await anonymous(path, { n: 1 }, { 'Parley-Hops': '5' });
		const error = await expectError(refused, 508);
		expect(error.error).toBe('Loop Detected');
		expect(error.message).toContain('Parley-Hops');
		await expectError(await api(token, 'POST', path, { n: 1 }, { 'Parley-Hops': '99' }), 508);
		expect(await runsOf(scenarioId)).toHaveLength(0);
		const { message } = await expectError(await anonymous(path, { n: 1 }, { 'Parley-Hops': 'many' }), 422);
		expect(message).toContain('parley-hops');
		expect(await runsOf(scenarioId)).toHaveLength(0);
		const accepted = await anonymous(path, { n: 1 }, { 'Parley-Hops': '4' });
		expect(accepted.status).toBe(202);
		const { runId } = (await accepted.json()) as { runId: string };
		const run = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}/runs/${runId}`)).json()) as {
			hops: number;
		};
		expect(run.hops).toBe(4);
		// The API's own start counts hops too: a scenario can call it with a token.
		await expectError(await api(token, 'POST', `/v3/scenarios/${scenarioId}/runs`, {}, { 'Parley-Hops': '5' }), 508);
		expect(await runsOf(scenarioId)).toHaveLength(1);
	});

	it("sends the run's count plus one on the run's outbound calls", async () => {
		const { token, workspaceId } = await seedWorkspace();
		const calling = {
			start: 'call',
			steps: [{ id: 'call', type: 'http_request', method: 'POST', url: 'https://erp.example/hook', body: '{}' }],
		};
		const { scenarioId } = await publishedScenario(token, calling);
		const seen: Array<string | null> = [];
		const rc: RunnerContext = {
			env,
			db,
			queue: { send: async () => {} } as unknown as Queue<ScenarioRunMessage>,
			transport: (async (input: RequestInfo | URL, init?: RequestInit) => {
				seen.push(new Request(input, init).headers.get('Parley-Hops'));
				return Response.json({ ok: true });
			}) as typeof fetch,
		};
		for (const hops of [0, 2]) {
			const { run } = await startRun(env, db, rc.queue, {
				workspaceId,
				scenarioId,
				trigger: 'webhook',
				source: null,
				dedupeKey: null,
				input: {},
				hops,
			});
			await driveRun(rc, { runId: run.id, workspaceId });
		}
		expect(seen).toEqual(['1', '3']);
	});
});

describe('flood protection', () => {
	it('is a workspace setting an admin reads and changes, validated', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const read = await api(token, 'GET', '/v3/automation-settings');
		expect(read.status).toBe(200);
		expect(await read.json()).toEqual({ scenarioRunsPerMinute: 100 });
		for (const bad of [0, -1, 1.5, 100_001, '10']) {
			const res = await api(token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: bad });
			expect((await expectError(res, 422)).message).toContain('scenarioRunsPerMinute');
		}
		await expectError(await api(token, 'PATCH', '/v3/automation-settings', {}), 422);
		const changed = await api(token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: 3 });
		expect(await changed.json()).toEqual({ scenarioRunsPerMinute: 3 });
		expect(await (await api(token, 'GET', '/v3/automation-settings')).json()).toEqual({ scenarioRunsPerMinute: 3 });
		const agent = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(agent.token, 'GET', '/v3/automation-settings'), 403);
		await expectError(await api(agent.token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: 50 }), 403);
		// Another workspace keeps its own default.
		const other = await seedWorkspace();
		expect(await (await api(other.token, 'GET', '/v3/automation-settings')).json()).toEqual({
			scenarioRunsPerMinute: 100,
		});
	});

	it('pauses a scenario whose webhook is fired faster than the setting, says so, and an admin resumes it', async () => {
		const { token, workspaceId } = await seedWorkspace();
		expect((await api(token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: 3 })).status).toBe(200);
		const { scenarioId, webhook } = await publishedScenario(token, echo, { auth: 'open', name: 'Orders' });
		const path = `/v3/workflows/webhook/${webhook.id}`;
		const admin = await openSocket('/v3/live', { Authorization: `Bearer ${token}` });
		const agent = await seedOperator(workspaceId, ['conversations:read']);
		const agentFeed = await openSocket('/v3/live', { Authorization: `Bearer ${agent.token}` });
		for (let i = 0; i < 3; i++) expect((await anonymous(path, { n: i })).status).toBe(202);
		const tripped = await expectError(await anonymous(path, { n: 3 }), 409);
		expect(tripped.message).toContain('paused');
		await expectError(await anonymous(path, { n: 4 }), 409);
		expect(await runsOf(scenarioId)).toHaveLength(3);
		const paused = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}`)).json()) as {
			enabled: boolean;
			paused: { at: string; reason: string; runsPerMinute: number } | null;
		};
		expect(paused.enabled).toBe(false);
		expect(paused.paused).toMatchObject({ runsPerMinute: 3, at: expect.any(String) });
		expect(paused.paused?.reason).toContain('3 runs a minute');
		// The event, once (recorded by the events Queue's consumer): rules and outbound webhooks see it.
		await expect.poll(() => pausedEvents(scenarioId)).toHaveLength(1);
		expect((await pausedEvents(scenarioId))[0]).toMatchObject({
			scenario: { id: scenarioId, name: 'Orders' },
			runsPerMinute: 3,
		});
		// The admins' live feed says so; an agent's does not.
		const notice = await admin.next('event', (f) => f.event.type === 'scenario.paused');
		expect(notice.event.payload).toMatchObject({ scenario: { id: scenarioId } });
		expect(agentFeed.frames.some((f) => f.type === 'event' && f.event.type === 'scenario.paused')).toBe(false);
		admin.close();
		agentFeed.close();
		// Only an admin resumes it; resumed, it starts runs again, counted from the resume.
		await expectError(await api(agent.token, 'POST', `/v3/scenarios/${scenarioId}/resume`), 403);
		const resumed = await api(token, 'POST', `/v3/scenarios/${scenarioId}/resume`);
		expect(resumed.status).toBe(200);
		const view = (await resumed.json()) as { updatedAt: string };
		expect(view).toMatchObject({ enabled: true, paused: null });
		// Its version, as every write answers: an editor that resumed it saves its draft over the resume.
		expect(resumed.headers.get('ETag')).toBe(`"${Date.parse(view.updatedAt)}"`);
		expect((await anonymous(path, { n: 5 })).status).toBe(202);
		expect(await runsOf(scenarioId)).toHaveLength(4);
	});

	it('counts concurrent starts exactly: no more runs than the setting a minute', async () => {
		const { token } = await seedWorkspace();
		expect((await api(token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: 4 })).status).toBe(200);
		const { scenarioId, webhook } = await publishedScenario(token, echo, { auth: 'open' });
		const path = `/v3/workflows/webhook/${webhook.id}`;
		const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => anonymous(path, { n })));
		expect(answers.filter((res) => res.status === 202)).toHaveLength(4);
		expect(answers.filter((res) => res.status === 409)).toHaveLength(8);
		expect(await runsOf(scenarioId)).toHaveLength(4);
		await expect.poll(() => pausedEvents(scenarioId)).toHaveLength(1);
	});

	it('is resumed by enabling the scenario again too', async () => {
		const { token } = await seedWorkspace();
		expect((await api(token, 'PATCH', '/v3/automation-settings', { scenarioRunsPerMinute: 1 })).status).toBe(200);
		const { scenarioId, webhook } = await publishedScenario(token, echo, { auth: 'open' });
		const path = `/v3/workflows/webhook/${webhook.id}`;
		expect((await anonymous(path)).status).toBe(202);
		await expectError(await anonymous(path), 409);
		const enabled = await api(token, 'PATCH', `/v3/scenarios/${scenarioId}`, { enabled: true });
		expect(await enabled.json()).toMatchObject({ enabled: true, paused: null });
		expect((await anonymous(path)).status).toBe(202);
	});
});
