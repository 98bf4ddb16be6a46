/**
 * Outbound webhook deliveries: each domain event goes to every enabled endpoint of its workspace that wants
 * its type, as one delivery (a row, and a message on the webhook-deliveries Queue, separate from the events
 * Queue), so one slow or failing receiver never delays another or the recording of events.
 *
 * A delivery follows Standard Webhooks, signed by the `standardwebhooks` package: `webhook-id` (the event id,
 * the same on every try, for receivers to dedupe), `webhook-timestamp`, `webhook-signature` (one `v1,…` per
 * active secret of the endpoint), and a body `{type, timestamp, data}`. A 2xx within 15 s is a success.
 * Anything else is tried again on RETRY_SCHEDULE (at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then
 * daily: about four days), then the delivery fails. An endpoint whose every try has failed for five days is
 * disabled, and the workspace is told with `webhook_endpoint.disabled`.
 *
 * A try is claimed before it is made (its number moves from n to n + 1 in D1), so a message delivered twice
 * makes one try, and a watchdog message re-makes a try whose Worker died before it settled; a delay longer
 * than a Queue allows (12 h) is waited in several legs, each message naming the try it is for. The log an
 * integrator reads (and its re-send) is in delivery-log.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { Database } from '../../db/client';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema';
import { commit, release } from '../../events/commit';
import { groupBy } from '../../lib/group-by';
import { guardedFetch, OutboundError } from '../../lib/guarded-fetch';
import { iso, newId } from '../../lib/ids';
import { SYSTEM } from '../../model/actor';
import { type DomainEvent, newEvent } from '../../model/events';
import { activeSecrets, type EndpointRow, endpointSecret } from './endpoints';

/** Seconds before each try: the first at once, then the Standard Webhooks schedule, then daily. */
export const RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18_000, 36_000, 36_000, 86_400, 86_400, 86_400] as const;
/** Failing this long (every try since) disables an endpoint. */
const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
/** How long a receiver has to answer. */
const RESPONSE_WINDOW_MS = 15_000;
/** The longest delay a Queue message may carry: longer waits go in legs. */
const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;
/** How long a claimed try may take before its watchdog message makes it again: the answer window and more. */
export const TRY_LEASE_MS = 60_000;
/** How early a delayed message may arrive and still make its try. */
const EARLY_SLACK_MS = 1_000;
/** What is kept of a receiver's answer. */
const KEPT_RESPONSE_CHARS = 500;

/**
 * A message of the deliveries Queue. `due` is the try it was sent for: a message whose `due` is no longer the
 * delivery's (a re-send moved it, a try was made) is stale and dropped, so no two chains of messages run.
 */
export const deliveryMessageSchema = z.object({ deliveryId: z.string(), workspaceId: z.string(), due: z.number() });
export type DeliveryMessage = z.infer<typeof deliveryMessageSchema>;

/** The body of a delivery: Standard Webhooks' `type`, `timestamp` and `data` (the event, its actor and workspace). */
export function deliveryBody(event: DomainEvent): string {
	return JSON.stringify({
		type: event.type,
		timestamp: event.occurredAt,
		data: { id: event.id, workspaceId: event.workspaceId, actor: event.actor, ...event.payload },
	});
}

function wants(endpoint: Pick<EndpointRow, 'eventTypes'>, type: string): boolean {
	return endpoint.eventTypes.includes('*') || endpoint.eventTypes.includes(type);
}

export type ListeningEndpoint = Pick<EndpointRow, 'id' | 'eventTypes'>;

/**
 * The enabled endpoints of these workspaces, by workspace, in one statement: the events consumer reads them
 * once per batch, so events of workspaces without endpoints (most) cost nothing each.
 */
export async function listeningEndpoints(db: Database, workspaceIds: string[]) {
	const rows = await db
		.select({
			id: webhookEndpoints.id,
			workspaceId: webhookEndpoints.workspaceId,
			eventTypes: webhookEndpoints.eventTypes,
		})
		.from(webhookEndpoints)
		.where(and(inArray(webhookEndpoints.workspaceId, [...new Set(workspaceIds)]), eq(webhookEndpoints.enabled, true)));
	return groupBy<ListeningEndpoint & { workspaceId: string }>(rows, (row) => row.workspaceId);
}

/**
 * Records a delivery of the event for each enabled endpoint that wants it and queues them. Idempotent by
 * (endpoint, event): a redelivered event queues again only what is still waiting for its first try.
 */
export async function fanOut(
	env: Env,
	db: Database,
	event: DomainEvent,
	now = Date.now(),
	listening?: ListeningEndpoint[],
): Promise<number> {
	const endpoints = listening ?? (await listeningEndpoints(db, [event.workspaceId])).get(event.workspaceId) ?? [];
	const targets = endpoints.filter((endpoint) => wants(endpoint, event.type));
	if (targets.length === 0) return 0;
	const body = deliveryBody(event);
	await db
		.insert(webhookDeliveries)
		.values(
			targets.map((endpoint) => ({
				id: newId('dlv', now),
				workspaceId: event.workspaceId,
				endpointId: endpoint.id,
				eventId: event.id,
				eventType: event.type,
				body,
				status: 'pending' as const,
				attempts: 0,
				nextAttemptAt: now,
				createdAt: now,
				updatedAt: now,
			})),
		)
		.onConflictDoNothing();
	const waiting = await db
		.select({ id: webhookDeliveries.id, due: webhookDeliveries.nextAttemptAt })
		.from(webhookDeliveries)
		.where(
			and(
				inArray(
					webhookDeliveries.endpointId,
					targets.map((t) => t.id),
				),
				eq(webhookDeliveries.eventId, event.id),
				eq(webhookDeliveries.attempts, 0),
			),
		);
	if (waiting.length > 0) {
		await env.WEBHOOK_DELIVERIES.sendBatch(
			waiting.map((row) => ({ body: { deliveryId: row.id, workspaceId: event.workspaceId, due: row.due ?? now } })),
		);
	}
	return waiting.length;
}

/** How a try reaches the world: a clock and a network a test may replace. */
export interface DeliveryContext {
	env: Env;
	db: Database;
	queue: Queue<DeliveryMessage>;
	now?: () => number;
	transport?: typeof fetch;
}

/** One message of the deliveries Queue: makes the delivery's next try if it is due; see the top of this file. */
export async function attemptDelivery(dc: DeliveryContext, message: DeliveryMessage): Promise<void> {
	const clock = dc.now ?? Date.now;
	const delivery = await dc.db
		.select()
		.from(webhookDeliveries)
		.where(and(eq(webhookDeliveries.id, message.deliveryId), eq(webhookDeliveries.workspaceId, message.workspaceId)))
		.get();
	if (delivery?.status !== 'pending' || delivery.nextAttemptAt !== message.due) return;
	const wait = delivery.nextAttemptAt - clock();
	if (wait > EARLY_SLACK_MS) {
		// Not yet: a leg of a long wait, or a redelivered message; the due try goes back on the Queue.
		await dc.queue.send(message, { delaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(wait / 1000)) });
		return;
	}
	const endpoint = await dc.db
		.select()
		.from(webhookEndpoints)
		.where(and(eq(webhookEndpoints.id, delivery.endpointId), eq(webhookEndpoints.workspaceId, delivery.workspaceId)))
		.get();
	if (!endpoint?.enabled) {
		await settle(dc.db, delivery, 'failed', null, clock());
		return;
	}
	// The claim: the one message that moves the try's count and its due time to a lease makes the try; a copy
	// arriving meanwhile finds another due time and is dropped. The watchdog, queued first, is due at the
	// lease: it makes the try again only if this one never settled (its Worker died mid-try).
	const attempt = delivery.attempts + 1;
	const lease = clock() + TRY_LEASE_MS;
	await dc.queue.send({ ...message, due: lease }, { delaySeconds: TRY_LEASE_MS / 1000 });
	const claimed = await dc.db
		.update(webhookDeliveries)
		.set({ attempts: attempt, nextAttemptAt: lease, updatedAt: clock() })
		.where(
			and(
				eq(webhookDeliveries.id, delivery.id),
				eq(webhookDeliveries.attempts, delivery.attempts),
				eq(webhookDeliveries.nextAttemptAt, message.due),
			),
		)
		.returning({ id: webhookDeliveries.id });
	if (claimed.length === 0) return;
	const startedAt = clock();
	const outcome = await send(dc, endpoint, delivery, startedAt);
	const at = clock();
	await dc.db.insert(webhookAttempts).values({
		deliveryId: delivery.id,
		attempt,
		workspaceId: delivery.workspaceId,
		at: startedAt,
		statusCode: outcome.statusCode,
		error: outcome.error,
		response: outcome.response,
		durationMs: Math.max(0, at - startedAt),
	});
	if (outcome.error === null) {
		await settle(dc.db, delivery, 'succeeded', null, at);
		// Unconditionally: a failure of another delivery may have set it since the endpoint was read.
		await dc.db
			.update(webhookEndpoints)
			.set({ failingSince: null })
			.where(and(eq(webhookEndpoints.id, endpoint.id), isNotNull(webhookEndpoints.failingSince)));
		return;
	}
	const failingSince = endpoint.failingSince ?? startedAt;
	if (at - failingSince >= DISABLE_AFTER_MS) {
		await disable(dc.env, dc.db, endpoint, failingSince, at);
		await settle(dc.db, delivery, 'failed', null, at);
		return;
	}
	if (endpoint.failingSince === null) {
		await dc.db
			.update(webhookEndpoints)
			.set({ failingSince })
			.where(and(eq(webhookEndpoints.id, endpoint.id), sql`${webhookEndpoints.failingSince} IS NULL`));
	}
	const delay = RETRY_SCHEDULE[attempt];
	if (delay === undefined) {
		await settle(dc.db, delivery, 'failed', null, at);
		return;
	}
	// The next try's message first: should the row's update then fail, the watchdog still makes a try.
	const due = at + delay * 1000;
	await dc.queue.send({ ...message, due }, { delaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, delay) });
	await settle(dc.db, delivery, 'pending', due, at);
}

interface Outcome {
	statusCode: number | null;
	error: string | null;
	response: string | null;
}

/** Signs and POSTs the delivery's body: a 2xx is a success, anything else the reason it failed. */
async function send(dc: DeliveryContext, endpoint: EndpointRow, delivery: DeliveryRow, now: number): Promise<Outcome> {
	const at = new Date(now);
	const signatures = await Promise.all(
		activeSecrets(endpoint, now).map(async (s) =>
			new Webhook(await endpointSecret(dc.env, endpoint.id, s.version)).sign(delivery.eventId, at, delivery.body),
		),
	);
	try {
		const response = await guardedFetch(
			dc.env,
			{
				url: endpoint.url,
				method: 'POST',
				headers: {
					'Content-Type': 'application/json',
					'User-Agent': 'Parley-Webhooks/1',
					'webhook-id': delivery.eventId,
					'webhook-timestamp': String(Math.floor(now / 1000)),
					'webhook-signature': signatures.join(' '),
				},
				body: delivery.body,
			},
			{
				timeoutMs: RESPONSE_WINDOW_MS,
				// Only the start of the answer is kept; a redirect is an answer, not a new address to POST to.
				maxBytes: KEPT_RESPONSE_CHARS * 4,
				overflow: 'truncate',
				followRedirects: false,
				...(dc.transport ? { transport: dc.transport } : {}),
			},
		);
		const kept = response.body.slice(0, KEPT_RESPONSE_CHARS);
		const ok = response.status >= 200 && response.status < 300;
		return { statusCode: response.status, error: ok ? null : `HTTP ${response.status}`, response: kept };
	} catch (error) {
		if (error instanceof OutboundError) return { statusCode: null, error: error.message, response: null };
		throw error;
	}
}

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

async function settle(
	db: Database,
	delivery: DeliveryRow,
	status: DeliveryRow['status'],
	nextAttemptAt: number | null,
	now: number,
) {
	await db
		.update(webhookDeliveries)
		.set({ status, nextAttemptAt, updatedAt: now })
		.where(eq(webhookDeliveries.id, delivery.id));
}

/** Stops deliveries to an endpoint that has failed for days, and tells the workspace (once). */
async function disable(env: Env, db: Database, endpoint: EndpointRow, failingSince: number, now: number) {
	const reason = `every delivery failed for ${Math.round((now - failingSince) / 86_400_000)} days`;
	const event = newEvent(
		'webhook_endpoint.disabled',
		endpoint.workspaceId,
		SYSTEM,
		{ endpoint: { id: endpoint.id, url: endpoint.url }, failingSince: iso(failingSince), reason },
		now,
	);
	const committed = await commit(db, {
		statements: [
			db
				.update(webhookEndpoints)
				.set({ enabled: false, disabledReason: reason, updatedAt: now })
				.where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true))),
		],
		events: [{ event, onlyIf: sql`changes() > 0` }],
	});
	await release(env, committed.events);
}
