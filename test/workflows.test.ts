import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { workflowRuns } from '../src/db/schema';
import { enqueueWebhookRun, type WorkflowRunMessage } from '../src/domain/workflow-runs';
import { ServiceUnavailable } from '../src/lib/errors';
import { api, db, expectError, seedWorkspace } from './factories';

async function newWebhook(token: string) {
	const res = await api(token, 'POST', '/v3/workflows/webhooks', { name: 'New lead' });
	expect(res.status).toBe(201);
	return (await res.json()) as { id: string; url: string };
}

describe('POST /v3/workflows/webhook/{webhook_id}', () => {
	it('answers 202 with a run id, records the run as queued and delivers it through the Queue', async () => {
		const { token } = await seedWorkspace();
		const webhook = await newWebhook(token);
		expect(webhook.url).toBe(`https://parley.test/v3/workflows/webhook/${webhook.id}`);
		const payload = { lead: { name: 'Ana', email: 'ana@example.com' }, score: 42 };
		const res = await api(token, 'POST', `/v3/workflows/webhook/${webhook.id}`, payload);
		expect(res.status).toBe(202);
		const accepted = (await res.json()) as { runId: string; status: string };
		expect(accepted).toMatchObject({ status: 'queued', runId: expect.stringMatching(/^run_/) });
		const run = await db.select().from(workflowRuns).where(eq(workflowRuns.id, accepted.runId)).get();
		expect(run).toMatchObject({ status: 'queued', input: payload, webhookId: webhook.id });
		// The real consumer receives the message and marks the run as dequeued.
		await expect
			.poll(
				async () => (await db.select().from(workflowRuns).where(eq(workflowRuns.id, accepted.runId)).get())?.dequeuedAt,
				{
					timeout: 5_000,
				},
			)
			.toBeTypeOf('number');
	});

	it('returns the first run for a retried Idempotency-Key and refuses the key with another body', async () => {
		const { token } = await seedWorkspace();
		const webhook = await newWebhook(token);
		const headers = { 'Idempotency-Key': 'evt_123' };
		const first = (await (
			await api(token, 'POST', `/v3/workflows/webhook/${webhook.id}`, { a: 1 }, headers)
		).json()) as {
			runId: string;
		};
		const again = (await (
			await api(token, 'POST', `/v3/workflows/webhook/${webhook.id}`, { a: 1 }, headers)
		).json()) as {
			runId: string;
		};
		expect(again.runId).toBe(first.runId);
		const other = await api(token, 'POST', `/v3/workflows/webhook/${webhook.id}`, { a: 2 }, headers);
		await expectError(other, 422);
		const runs = await db.select().from(workflowRuns).where(eq(workflowRuns.webhookId, webhook.id));
		expect(runs).toHaveLength(1);
	});

	it('answers 413 over 256 KiB, 400 for a body that is not JSON, 422 for a JSON array, 404 for an unknown webhook', async () => {
		const { token } = await seedWorkspace();
		const webhook = await newWebhook(token);
		const path = `/v3/workflows/webhook/${webhook.id}`;
		await expectError(await api(token, 'POST', path, { blob: 'x'.repeat(256 * 1024) }), 413);
		await expectError(await api(token, 'POST', path, '{not json'), 400);
		await expectError(await api(token, 'POST', path, [1, 2, 3]), 422);
		await expectError(await api(token, 'POST', '/v3/workflows/webhook/wh_unknown', { a: 1 }), 404);
		const runs = await db.select().from(workflowRuns).where(eq(workflowRuns.webhookId, webhook.id));
		expect(runs).toHaveLength(0);
	});

	it('keeps no run when the Queue refuses the message, and says so with 503', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const webhook = await newWebhook(token);
		// The real D1 with a Queue that is down: the failure a 202 must never hide.
		const downQueue = {
			send: async () => {
				throw new Error('queue unavailable');
			},
		} as unknown as Queue<WorkflowRunMessage>;
		await expect(enqueueWebhookRun(db, downQueue, workspaceId, webhook.id, { a: 1 }, null)).rejects.toBeInstanceOf(
			ServiceUnavailable,
		);
		const runs = await db.select().from(workflowRuns).where(eq(workflowRuns.webhookId, webhook.id));
		expect(runs).toEqual([]);
	});

	it('accepts a body just under the limit', async () => {
		const { token } = await seedWorkspace();
		const webhook = await newWebhook(token);
		const res = await api(token, 'POST', `/v3/workflows/webhook/${webhook.id}`, { blob: 'x'.repeat(200 * 1024) });
		expect(res.status).toBe(202);
	});

	it('replays a retry whose body has the same keys in another order, nested too', async () => {
		const { token } = await seedWorkspace();
		const webhook = await newWebhook(token);
		const headers = { 'Idempotency-Key': 'evt_order' };
		const path = `/v3/workflows/webhook/${webhook.id}`;
		const first = await api(token, 'POST', path, '{"a":1,"b":{"x":[1,{"p":true,"q":null}],"y":"z"}}', headers);
		expect(first.status).toBe(202);
		const again = await api(token, 'POST', path, '{"b":{"y":"z","x":[1,{"q":null,"p":true}]},"a":1}', headers);
		expect(again.status).toBe(202);
		expect(again.headers.get('Idempotent-Replayed')).toBe('true');
		expect(((await again.json()) as { runId: string }).runId).toBe(((await first.json()) as { runId: string }).runId);
		// Array order is meaning, not layout: reordering it is another body.
		await expectError(
			await api(token, 'POST', path, '{"a":1,"b":{"x":[{"p":true,"q":null},1],"y":"z"}}', headers),
			422,
		);
	});

	it('refuses a body nested deeper than 32 levels with 422 and stores nothing', async () => {
		const { token } = await seedWorkspace();
		const webhook = await newWebhook(token);
		const path = `/v3/workflows/webhook/${webhook.id}`;
		const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
		expect((await api(token, 'POST', path, nested(32))).status).toBe(202);
		const { message } = await expectError(await api(token, 'POST', path, nested(33)), 422);
		expect(message).toContain('32 levels');
		// Far deeper than any stack would bear if it were walked recursively.
		await expectError(await api(token, 'POST', path, `{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`), 422);
		const runs = await db.select().from(workflowRuns).where(eq(workflowRuns.webhookId, webhook.id));
		expect(runs).toHaveLength(1);
	});
});
