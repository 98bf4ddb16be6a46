import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { scenarioRuns } from '../src/db/schema';
import { type ScenarioRunMessage, startRun } from '../src/domain/automation/scenarios/runs';
import { ServiceUnavailable } from '../src/lib/errors';
import { api, db, expectError, publishedScenario, runWhen, seedWorkspace } from './factories';

/** A scenario that only keeps what it was sent: enough to see a run start and end. */
const echo = { start: 'keep', steps: [{ id: 'keep', type: 'set_variables', values: { got: '{{ orderId }}' } }] };

async function webhookScene(auth?: 'secret' | 'open') {
	const seeded = await seedWorkspace();
	const { scenarioId, webhook } = await publishedScenario(seeded.token, echo, auth ? { auth } : {});
	const path = `/v3/workflows/webhook/${webhook.id}`;
	return { ...seeded, scenarioId, webhook, path };
}

/** A raw call with no token (a form tool, a shop): the headers it is given and a JSON body. */
function anonymous(path: string, body: string, headers: Record<string, string> = {}) {
	return api(null, 'POST', path, body, { 'Content-Type': 'application/json', ...headers });
}

/** Standard Webhooks headers for `body`, signed with `secret` at `at`. */
function signed(secret: string, id: string, body: string, at = new Date()) {
	return {
		'webhook-id': id,
		'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
		'webhook-signature': new Webhook(secret).sign(id, at, body),
	};
}

async function runsOf(scenarioId: string) {
	return db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId));
}

describe('POST /v3/workflows/webhook/{webhook_id}', () => {
	it('answers 202 with a run id at once, and the real consumer runs the scenario with the body as variables', async () => {
		const s = await webhookScene();
		expect(s.webhook.url).toBe(`https://parley.test${s.path}`);
		const res = await api(s.token, 'POST', s.path, { orderId: '1042' });
		expect(res.status).toBe(202);
		const accepted = (await res.json()) as { runId: string; status: string; scenarioId: string };
		expect(accepted).toMatchObject({
			status: 'queued',
			scenarioId: s.scenarioId,
			runId: expect.stringMatching(/^run_/),
		});
		const run = await runWhen(s.token, s.scenarioId, accepted.runId);
		expect(run).toMatchObject({ status: 'succeeded', trigger: 'webhook', source: s.webhook.id });
		expect(run.variables).toMatchObject({ orderId: '1042', got: '1042' });
	});

	it('accepts a Token V3, a good signature or the secret header, and refuses a bad, stale or missing one with 401', async () => {
		const s = await webhookScene();
		const body = JSON.stringify({ orderId: '7' });
		expect((await api(s.token, 'POST', s.path, body)).status).toBe(202);
		expect((await anonymous(s.path, body, signed(s.webhook.secret, 'msg_good', body))).status).toBe(202);
		expect((await anonymous(s.path, body, { 'X-Webhook-Secret': s.webhook.secret })).status).toBe(202);
		const wrongKey = `whsec_${btoa('another secret of 32 bytes long!')}`;
		const refusals: Array<[string, Record<string, string>]> = [
			['no credential', {}],
			['signed with another secret', signed(wrongKey, 'msg_bad', body)],
			['signed over another body', signed(s.webhook.secret, 'msg_other', '{"orderId":"8"}')],
			['stale by 6 minutes', signed(s.webhook.secret, 'msg_old', body, new Date(Date.now() - 6 * 60_000))],
			['another secret in the header', { 'X-Webhook-Secret': wrongKey }],
		];
		for (const [why, headers] of refusals) {
			const res = await anonymous(s.path, body, headers);
			const error = await expectError(res, 401);
			expect(error.message, why).toMatch(/webhook|Webhook|signature|secret/);
			expect(res.headers.get('WWW-Authenticate'), why).toContain('Bearer');
		}
		expect(await runsOf(s.scenarioId)).toHaveLength(3);
	});

	it('answers a sender’s retried webhook-id with the first run, and the same id with another body with 422', async () => {
		const s = await webhookScene();
		const body = JSON.stringify({ orderId: '1' });
		const first = await anonymous(s.path, body, signed(s.webhook.secret, 'msg_1', body));
		// The sender's retry is signed anew (another timestamp) over the same body.
		const again = await anonymous(s.path, body, signed(s.webhook.secret, 'msg_1', body, new Date(Date.now() - 1000)));
		expect(again.status).toBe(202);
		expect(again.headers.get('Idempotent-Replayed')).toBe('true');
		expect(((await again.json()) as { runId: string }).runId).toBe(((await first.json()) as { runId: string }).runId);
		const other = JSON.stringify({ orderId: '2' });
		await expectError(await anonymous(s.path, other, signed(s.webhook.secret, 'msg_1', other)), 422);
		expect(await runsOf(s.scenarioId)).toHaveLength(1);
	});

	it('takes anonymous calls only on a webhook its owner made open, and a rotated secret retires the old one', async () => {
		const closed = await webhookScene();
		await expectError(await anonymous(closed.path, '{}'), 401);
		const open = await webhookScene('open');
		expect((await anonymous(open.path, '{"orderId":"3"}')).status).toBe(202);
		const rotated = await api(
			closed.token,
			'POST',
			`/v3/scenarios/${closed.scenarioId}/webhooks/${closed.webhook.id}/rotate-secret`,
		);
		const { secret } = (await rotated.json()) as { secret: string };
		expect(secret).not.toBe(closed.webhook.secret);
		await expectError(await anonymous(closed.path, '{}', { 'X-Webhook-Secret': closed.webhook.secret }), 401);
		expect((await anonymous(closed.path, '{}', { 'X-Webhook-Secret': secret })).status).toBe(202);
		// Disabled: gone for everyone, token holders and anonymous callers of an open webhook alike.
		const hook = `/v3/scenarios/${closed.scenarioId}/webhooks/${closed.webhook.id}`;
		expect((await api(closed.token, 'PATCH', hook, { enabled: false })).status).toBe(200);
		await expectError(await api(closed.token, 'POST', closed.path, {}), 404);
		const openHook = `/v3/scenarios/${open.scenarioId}/webhooks/${open.webhook.id}`;
		expect((await api(open.token, 'PATCH', openHook, { enabled: false })).status).toBe(200);
		await expectError(await anonymous(open.path, '{}'), 404);
	});

	it('answers 413 over 256 KiB, 400 for a body that is not JSON, 422 for a JSON array, 404 for an unknown webhook', async () => {
		const s = await webhookScene();
		await expectError(await api(s.token, 'POST', s.path, { blob: 'x'.repeat(256 * 1024) }), 413);
		await expectError(await api(s.token, 'POST', s.path, '{not json'), 400);
		await expectError(await api(s.token, 'POST', s.path, [1, 2, 3]), 422);
		await expectError(await api(s.token, 'POST', '/v3/workflows/webhook/wh_unknown', { a: 1 }), 404);
		await expectError(await anonymous('/v3/workflows/webhook/wh_unknown', '{}'), 404);
		expect(await runsOf(s.scenarioId)).toHaveLength(0);
		expect((await api(s.token, 'POST', s.path, { blob: 'x'.repeat(200 * 1024) })).status).toBe(202);
	});

	it('answers 409 for a scenario that is unpublished or disabled, and records nothing', async () => {
		const s = await webhookScene();
		expect((await api(s.token, 'PATCH', `/v3/scenarios/${s.scenarioId}`, { enabled: false })).status).toBe(200);
		const { message } = await expectError(await api(s.token, 'POST', s.path, {}), 409);
		expect(message).toContain('disabled');
		expect(await runsOf(s.scenarioId)).toHaveLength(0);
		// A scenario never published has a webhook already, and nothing to run.
		const draft = (await (await api(s.token, 'POST', '/v3/scenarios', { name: 'Draft', definition: echo })).json()) as {
			id: string;
		};
		const hook = (await (
			await api(s.token, 'POST', `/v3/scenarios/${draft.id}/webhooks`, { name: 'Early' })
		).json()) as { id: string };
		const unpublished = await expectError(await api(s.token, 'POST', `/v3/workflows/webhook/${hook.id}`, {}), 409);
		expect(unpublished.message).toContain('no published version');
		expect(await runsOf(draft.id)).toHaveLength(0);
	});

	it('keeps no run when the Queue refuses the message, and says so with 503', async () => {
		const s = await webhookScene();
		// The real D1 with a Queue that is down: the failure a 202 must never hide.
		const downQueue = {
			send: async () => {
				throw new Error('queue unavailable');
			},
		} as unknown as Queue<ScenarioRunMessage>;
		const start = {
			workspaceId: s.workspaceId,
			scenarioId: s.scenarioId,
			trigger: 'webhook' as const,
			source: s.webhook.id,
			dedupeKey: null,
			input: { a: 1 },
		};
		await expect(startRun(env, db, downQueue, start)).rejects.toBeInstanceOf(ServiceUnavailable);
		expect(await runsOf(s.scenarioId)).toEqual([]);
	});

	it('replays a retry whose body has the same keys in another order, nested too', async () => {
		const s = await webhookScene();
		const headers = { 'Idempotency-Key': 'evt_order' };
		const first = await api(s.token, 'POST', s.path, '{"a":1,"b":{"x":[1,{"p":true,"q":null}],"y":"z"}}', headers);
		expect(first.status).toBe(202);
		const again = await api(s.token, 'POST', s.path, '{"b":{"y":"z","x":[1,{"q":null,"p":true}]},"a":1}', headers);
		expect(again.status).toBe(202);
		expect(again.headers.get('Idempotent-Replayed')).toBe('true');
		expect(((await again.json()) as { runId: string }).runId).toBe(((await first.json()) as { runId: string }).runId);
		// Array order is meaning, not layout: reordering it is another body.
		await expectError(
			await api(s.token, 'POST', s.path, '{"a":1,"b":{"x":[{"p":true,"q":null},1],"y":"z"}}', headers),
			422,
		);
	});

	it('refuses a body nested deeper than 32 levels with 422 and stores nothing', async () => {
		const s = await webhookScene();
		const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
		expect((await api(s.token, 'POST', s.path, nested(32))).status).toBe(202);
		const { message } = await expectError(await api(s.token, 'POST', s.path, nested(33)), 422);
		expect(message).toContain('32 levels');
		// Far deeper than any stack would bear if it were walked recursively.
		await expectError(await api(s.token, 'POST', s.path, `{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`), 422);
		expect(await runsOf(s.scenarioId)).toHaveLength(1);
	});
});
