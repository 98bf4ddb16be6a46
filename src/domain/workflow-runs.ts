import { z } from '@hono/zod-openapi';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../db/client';
import { inboundWebhooks, workflowRuns } from '../db/schema';
import { canonicalJson, jsonDepth } from '../lib/canonical-json';
import { Conflict, Invalid, NotFound, ServiceUnavailable } from '../lib/errors';
import { iso, newId } from '../lib/ids';

/** What travels on the workflow-runs Queue: just enough to load the run from D1. */
export const workflowRunMessageSchema = z.object({ runId: z.string(), workspaceId: z.string() });
export type WorkflowRunMessage = z.infer<typeof workflowRunMessageSchema>;

export const inboundWebhookSchema = z
	.object({
		id: z.string().openapi({ description: 'The webhook id.', example: 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'A name for people.' }),
		scenarioId: z
			.string()
			.nullable()
			.openapi({ description: 'The scenario a call starts; null until one is attached.' }),
		enabled: z.boolean().openapi({ description: 'Whether calls start runs.' }),
		url: z.string().openapi({ description: 'POST JSON here (with a Token V3) to start a run.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
	})
	.openapi('InboundWebhook');

export const workflowRunAcceptedSchema = z
	.object({
		runId: z.string().openapi({ description: 'The run id.', example: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		webhookId: z.string().openapi({ description: 'The webhook that started it.' }),
		status: z.enum(['queued', 'running', 'succeeded', 'failed']).openapi({ description: 'Where the run is.' }),
		createdAt: z.string().openapi({ description: 'When it was recorded (ISO 8601).' }),
	})
	.openapi('WorkflowRunAccepted');

/** Deeper than any real event payload; a body nested thousands deep would only cost every later reader. */
export const MAX_WEBHOOK_DEPTH = 32;

/** A webhook body: any JSON object, refused (422) when nested deeper than MAX_WEBHOOK_DEPTH. */
export const webhookInputSchema = z
	.record(z.string(), z.unknown())
	.refine((input) => jsonDepth(input, MAX_WEBHOOK_DEPTH) <= MAX_WEBHOOK_DEPTH, {
		message: `nested deeper than ${MAX_WEBHOOK_DEPTH} levels`,
	})
	.openapi({ description: `Any JSON object, up to 256 KiB and ${MAX_WEBHOOK_DEPTH} levels deep.` });

type WebhookRow = typeof inboundWebhooks.$inferSelect;

function webhookView(row: WebhookRow, origin: string) {
	return {
		id: row.id,
		name: row.name,
		scenarioId: row.scenarioId,
		enabled: row.enabled,
		url: `${origin}/v3/workflows/webhook/${row.id}`,
		createdAt: iso(row.createdAt),
	};
}

export async function createInboundWebhook(db: Database, workspaceId: string, name: string, origin: string) {
	const now = Date.now();
	const [row] = await db
		.insert(inboundWebhooks)
		.values({ id: newId('wh', now), workspaceId, name, scenarioId: null, enabled: true, createdAt: now })
		.returning();
	return webhookView(row as WebhookRow, origin);
}

export async function listInboundWebhooks(db: Database, workspaceId: string, origin: string) {
	const rows = await db
		.select()
		.from(inboundWebhooks)
		.where(eq(inboundWebhooks.workspaceId, workspaceId))
		.orderBy(desc(inboundWebhooks.createdAt))
		.limit(200);
	return rows.map((row) => webhookView(row, origin));
}

/**
 * Records a run of the webhook's scenario as queued and puts it on the Queue. The run row is written
 * first, so a run that reached the Queue always exists; when the Queue refuses, the row is removed and the
 * caller gets a 503 to retry, so a 202 always means the run will be processed.
 * An Idempotency-Key makes a sender's retry return the first run.
 */
export async function enqueueWebhookRun(
	db: Database,
	queue: Queue<WorkflowRunMessage>,
	workspaceId: string,
	webhookId: string,
	input: Record<string, unknown>,
	idempotencyKey: string | null,
) {
	const webhook = await db
		.select({ id: inboundWebhooks.id, scenarioId: inboundWebhooks.scenarioId })
		.from(inboundWebhooks)
		.where(
			and(
				eq(inboundWebhooks.workspaceId, workspaceId),
				eq(inboundWebhooks.id, webhookId),
				eq(inboundWebhooks.enabled, true),
			),
		)
		.get();
	if (!webhook) throw new NotFound(`Webhook ${webhookId} not found (or disabled).`);
	const now = Date.now();
	const run = {
		id: newId('run', now),
		workspaceId,
		webhookId,
		scenarioId: webhook.scenarioId,
		status: 'queued' as const,
		input,
		idempotencyKey,
		createdAt: now,
	};
	const [inserted] = await db.insert(workflowRuns).values(run).onConflictDoNothing().returning();
	if (!inserted) return replayRun(db, workspaceId, webhookId, idempotencyKey, input);
	try {
		await queue.send({ runId: run.id, workspaceId });
	} catch (error) {
		await db.delete(workflowRuns).where(eq(workflowRuns.id, run.id));
		throw new ServiceUnavailable('The run could not be queued; nothing was recorded. Retry shortly.', { cause: error });
	}
	return { run: inserted, replayed: false };
}

/**
 * The run an earlier request with the same Idempotency-Key recorded. A key reused with another body is a
 * sender bug (422), compared in canonical form: the same body with its keys in another order is the same
 * body. A key whose first request is still being queued, or failed to be, is a 409 to retry.
 */
async function replayRun(
	db: Database,
	workspaceId: string,
	webhookId: string,
	idempotencyKey: string | null,
	input: Record<string, unknown>,
) {
	const first =
		idempotencyKey === null
			? undefined
			: await db
					.select()
					.from(workflowRuns)
					.where(
						and(
							eq(workflowRuns.workspaceId, workspaceId),
							eq(workflowRuns.webhookId, webhookId),
							eq(workflowRuns.idempotencyKey, idempotencyKey),
						),
					)
					.get();
	if (!first) throw new Conflict('A run with this Idempotency-Key is being recorded; retry shortly.');
	if (canonicalJson(first.input) !== canonicalJson(input)) {
		throw new Invalid('This Idempotency-Key was already used with a different body.');
	}
	return { run: first, replayed: true };
}

export function runAccepted(run: typeof workflowRuns.$inferSelect) {
	return { runId: run.id, webhookId: run.webhookId, status: run.status, createdAt: iso(run.createdAt) };
}

/**
 * The queue consumer's work for one message. The scenario engine is not built yet, so a run is only
 * marked as received and stays `queued` for it. Idempotent: a redelivered message changes nothing.
 */
export async function receiveWorkflowRun(db: Database, message: WorkflowRunMessage, now = Date.now()) {
	await db
		.update(workflowRuns)
		.set({ dequeuedAt: now })
		.where(
			and(
				eq(workflowRuns.id, message.runId),
				eq(workflowRuns.workspaceId, message.workspaceId),
				isNull(workflowRuns.dequeuedAt),
			),
		);
}
