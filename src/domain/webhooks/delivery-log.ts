/**
 * The delivery log an integrator reads at /v3/webhooks/{id}/deliveries: each delivery with its
 * tries, and a re-send of one. Apart from deliveries.ts, which makes the deliveries (fan-out, tries, retries)
 * from the Queue consumers; this module only reads them and hands one back to that Queue.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { DELIVERY_STATUSES, webhookAttempts, webhookDeliveries } from '../../db/schema';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../lib/cursor';
import { Conflict, NotFound, ServiceUnavailable } from '../../lib/errors';
import { iso, isoOrNull } from '../../lib/ids';
import { type DeliveryMessage, type DeliveryRow, TRY_LEASE_MS } from './deliveries';
import { endpointRow } from './endpoints';

const attemptView = z
	.object({
		attempt: z.number().int().openapi({ description: 'The try, from 1.' }),
		at: z.string().openapi({ description: 'When it was made (ISO 8601).' }),
		statusCode: z.number().int().nullable().openapi({ description: 'The receiver’s HTTP status, or null.' }),
		error: z.string().nullable().openapi({ description: 'Why it failed; null for a 2xx.' }),
		response: z.string().nullable().openapi({ description: 'The start of the receiver’s answer.' }),
		durationMs: z.number().int().openapi({ description: 'How long it took.' }),
	})
	.openapi('WebhookAttempt');

const deliveryFields = {
	id: z.string().openapi({ description: 'The delivery id.', example: 'dlv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
	endpointId: z.string().openapi({ description: 'The endpoint.' }),
	eventId: z.string().openapi({ description: 'The event, sent as `webhook-id`.' }),
	eventType: z.string().openapi({ description: 'Its type.' }),
	status: z.enum(DELIVERY_STATUSES).openapi({ description: '`pending` (a try is due), `succeeded` or `failed`.' }),
	attempts: z.number().int().openapi({ description: 'Tries made.' }),
	nextAttemptAt: z.string().nullable().openapi({ description: 'When the next try is due (ISO 8601), or null.' }),
	createdAt: z.string().openapi({ description: 'When it was recorded (ISO 8601).' }),
};

export const deliverySummarySchema = z.object(deliveryFields).openapi('WebhookDeliverySummary');

export const deliverySchema = z
	.object({
		...deliveryFields,
		body: z.string().openapi({ description: 'The body, exactly as signed and sent.' }),
		attemptLog: z.array(attemptView).openapi({ description: 'Every try, in order.' }),
	})
	.openapi('WebhookDelivery');

function summaryView(row: DeliveryRow): z.infer<typeof deliverySummarySchema> {
	return {
		id: row.id,
		endpointId: row.endpointId,
		eventId: row.eventId,
		eventType: row.eventType,
		status: row.status,
		attempts: row.attempts,
		nextAttemptAt: isoOrNull(row.nextAttemptAt),
		createdAt: iso(row.createdAt),
	};
}

/** One page of an endpoint's deliveries, newest first, optionally of one status. */
export async function listDeliveries(
	db: Database,
	workspaceId: string,
	endpointId: string,
	status: DeliveryRow['status'] | undefined,
	after: NewestFirstCursor | null,
	limit: number,
) {
	await endpointRow(db, workspaceId, endpointId);
	const rows = await db
		.select()
		.from(webhookDeliveries)
		.where(
			and(
				eq(webhookDeliveries.workspaceId, workspaceId),
				eq(webhookDeliveries.endpointId, endpointId),
				status === undefined ? undefined : eq(webhookDeliveries.status, status),
				afterNewestFirst(webhookDeliveries.createdAt, webhookDeliveries.id, after),
			),
		)
		.orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
		.limit(limit + 1);
	return pageOf(rows, limit, summaryView, (row) => ({ at: row.createdAt, id: row.id }));
}

async function deliveryRow(db: Database, workspaceId: string, endpointId: string, id: string) {
	const row = await db
		.select()
		.from(webhookDeliveries)
		.where(
			and(
				eq(webhookDeliveries.workspaceId, workspaceId),
				eq(webhookDeliveries.endpointId, endpointId),
				eq(webhookDeliveries.id, id),
			),
		)
		.get();
	if (!row) throw new NotFound(`Delivery ${id} of endpoint ${endpointId} not found.`);
	return row;
}

export async function getDelivery(db: Database, workspaceId: string, endpointId: string, id: string) {
	const row = await deliveryRow(db, workspaceId, endpointId, id);
	const attempts = await db
		.select()
		.from(webhookAttempts)
		.where(and(eq(webhookAttempts.workspaceId, workspaceId), eq(webhookAttempts.deliveryId, id)))
		.orderBy(webhookAttempts.attempt);
	return {
		...summaryView(row),
		body: row.body,
		attemptLog: attempts.map((a) => ({
			attempt: a.attempt,
			at: iso(a.at),
			statusCode: a.statusCode,
			error: a.error,
			response: a.response,
			durationMs: a.durationMs,
		})),
	};
}

/**
 * Sends a delivery again now (the same event id and body, signed anew), whatever became of it; its tries go
 * on from the count it has. A delivery with a try due within a minute is a 409: it is being sent.
 */
export async function resendDelivery(
	db: Database,
	queue: Queue<DeliveryMessage>,
	workspaceId: string,
	endpointId: string,
	id: string,
	now = Date.now(),
) {
	const row = await deliveryRow(db, workspaceId, endpointId, id);
	const endpoint = await endpointRow(db, workspaceId, endpointId);
	if (!endpoint.enabled) throw new Conflict(`Webhook endpoint ${endpointId} is disabled: enable it first.`);
	// A try due within the last minute is being made (or its watchdog is about to make it).
	if (row.status === 'pending' && row.nextAttemptAt !== null && Math.abs(now - row.nextAttemptAt) < TRY_LEASE_MS) {
		throw new Conflict(`Delivery ${id} is being sent now.`);
	}
	const changed = await db
		.update(webhookDeliveries)
		.set({ status: 'pending', nextAttemptAt: now, updatedAt: now })
		.where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.updatedAt, row.updatedAt)))
		.returning({ id: webhookDeliveries.id });
	if (changed.length === 0) throw new Conflict(`Delivery ${id} changed meanwhile; read it again.`);
	try {
		await queue.send({ deliveryId: id, workspaceId, due: now });
	} catch (error) {
		await db
			.update(webhookDeliveries)
			.set({ status: row.status, nextAttemptAt: row.nextAttemptAt })
			.where(eq(webhookDeliveries.id, id));
		throw new ServiceUnavailable('The delivery could not be queued; nothing changed. Retry shortly.', {
			cause: error,
		});
	}
	return getDelivery(db, workspaceId, endpointId, id);
}
