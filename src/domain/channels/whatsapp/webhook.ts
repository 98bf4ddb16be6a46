/**
 * A connected number's webhook (`/whatsapp/{numberId}/webhook`): Meta's verification request, and event
 * POSTs. A POST is believed only with `X-Hub-Signature-256` = HMAC-SHA256 of the exact body bytes under
 * the number's app secret (checked in constant time by WebCrypto's verify), and only when every change in
 * it names this number; anything else is refused (401) before a row is written. A signed body that is not
 * Meta's envelope is 400 (not JSON) or 422 (not the shape), also before anything is stored.
 *
 * Each message and status is then applied once per WhatsApp id (inbound.ts, statuses.ts), before answering,
 * one update at a time. Meta redelivers only what is not answered 200, so a batch with a message that failed
 * for a reason that may pass (Meta's media server, a busy database) is answered 503: its redelivery skips
 * what was applied and tries the rest. The work stops at a time budget for the same reason (Meta's batches
 * are small, but a 1 MiB body could hold many): what is left comes back with the redelivery.
 */
import { eq } from 'drizzle-orm';
import { digestsEqual, sha256Hex } from '../../../auth/token';
import type { Database } from '../../../db/client';
import { whatsappNumbers } from '../../../db/schema';
import { routeRequest } from '../../../db/sessions';
import { routedWorkspace } from '../../../db/shards';
import { Invalid, Malformed, ServiceUnavailable, Unauthorized } from '../../../lib/errors';
import { type GraphEnv, type OpenNumber, openRow } from './graph';
import { applyInboundMessage, type InboundOutcome } from './inbound';
import { applyStatus, type StatusOutcome } from './statuses';
import { messageValues, webhookPayloadSchema } from './webhook-payload';

/** One message for every refusal, so a caller learns nothing about which check failed. */
const REFUSED = 'Not a valid WhatsApp webhook for this number.';

function refused(): Unauthorized {
	return new Unauthorized(REFUSED, false);
}

/**
 * Sends the request's statements to the shard of the workspace that connected the number (src/db/shards.ts):
 * the path names the connection only. An unrouted one is looked for in `DB`.
 */
export async function routeToNumber(env: Env, db: Database, numberId: string): Promise<void> {
	if (!/^wan_[0-9A-Z]{26}$/.test(numberId)) return;
	const workspaceId = await routedWorkspace(env, 'whatsapp_number', numberId);
	if (workspaceId) routeRequest(db, workspaceId);
}

async function numberRow(db: Database, numberId: string) {
	if (!/^wan_[0-9A-Z]{26}$/.test(numberId)) return null;
	return (await db.select().from(whatsappNumbers).where(eq(whatsappNumbers.id, numberId)).get()) ?? null;
}

/**
 * Meta's verification request: the challenge to echo when the mode is `subscribe` and the verify token is
 * the number's (compared as SHA-256 digests, in constant time); Unauthorized otherwise.
 */
export async function verifySubscription(
	db: Database,
	numberId: string,
	query: { mode?: string; token?: string; challenge?: string },
): Promise<string> {
	const row = await numberRow(db, numberId);
	if (!row || query.mode !== 'subscribe' || !query.token || query.challenge === undefined) throw refused();
	if (!digestsEqual(await sha256Hex(query.token), row.verifyTokenHash)) throw refused();
	return query.challenge;
}

/** Whether `header` (`sha256=<hex>`) is the HMAC-SHA256 of `body` under `secret`. */
export async function signatureValid(secret: string, body: Uint8Array, header: string | undefined): Promise<boolean> {
	const hex = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '')?.[1];
	if (!hex) return false;
	const signature = Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
	const key = await crypto.subtle.importKey(
		'raw',
		new TextEncoder().encode(secret),
		{ name: 'HMAC', hash: 'SHA-256' },
		false,
		['verify'],
	);
	return crypto.subtle.verify('HMAC', key, signature, body);
}

/** How long a webhook's work may take before the rest is left to Meta's redelivery (its timeout is longer). */
export const WEBHOOK_BUDGET_MS = 15_000;

export interface WebhookResult {
	messages: Record<InboundOutcome, number>;
	statuses: Record<StatusOutcome, number>;
}

/** Checks and parses a POST (see the module's comment): the number, opened, and the payload's values. */
async function checked(env: GraphEnv, db: Database, numberId: string, body: Uint8Array, signature: string | undefined) {
	const row = await numberRow(db, numberId);
	if (!row) throw refused();
	const number = await openRow(env, row);
	if (!(await signatureValid(number.appSecret, body, signature))) throw refused();
	let json: unknown;
	try {
		json = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body));
	} catch {
		throw new Malformed('The webhook body is not JSON.');
	}
	const parsed = webhookPayloadSchema.safeParse(json);
	if (!parsed.success) throw Invalid.fromIssues(parsed.error.issues);
	const values = messageValues(parsed.data);
	// Signed with this number's app secret, but about another number of the same app: not this webhook's.
	if (values.some((value) => value.metadata.phone_number_id !== number.phoneNumberId)) throw refused();
	return { number, values };
}

/**
 * Applies a POST to the webhook of `numberId`: every message and status in it, in order (see the module's
 * comment). `origin` is the API origin the files are linked from. ServiceUnavailable when something is left
 * for Meta's redelivery.
 */
export async function receiveWebhook(
	env: Env & GraphEnv,
	db: Database,
	numberId: string,
	body: Uint8Array,
	signature: string | undefined,
	origin: string,
	budgetMs = WEBHOOK_BUDGET_MS,
): Promise<WebhookResult> {
	const { number, values } = await checked(env, db, numberId, body, signature);
	const result: WebhookResult = {
		messages: { posted: 0, ignored: 0, failed: 0, refused: 0, repeated: 0 },
		statuses: { applied: 0, unchanged: 0, unknown: 0 },
	};
	const deadline = Date.now() + budgetMs;
	// At least one new update per delivery (a redelivery's repeats are quick and do not count), so every
	// redelivery moves on.
	let worked = false;
	const inTime = () => !worked || Date.now() <= deadline;
	for (const value of values) {
		for (const message of value.messages ?? []) {
			if (!inTime()) throw later(result);
			const profile = value.contacts?.find((c) => c.wa_id === message.from)?.profile?.name ?? null;
			const outcome = await applyInboundMessage(env, db, number as OpenNumber, message, profile, origin);
			result.messages[outcome]++;
			worked ||= outcome !== 'repeated';
		}
		for (const status of value.statuses ?? []) {
			if (!inTime()) throw later(result);
			result.statuses[await applyStatus(env, db, number, status)]++;
			worked = true;
		}
	}
	if (result.messages.failed > 0) throw later(result);
	return result;
}

/** The answer that makes Meta deliver the batch again, for what is not applied yet. */
function later(result: WebhookResult): ServiceUnavailable {
	const failed = result.messages.failed;
	return new ServiceUnavailable(
		failed > 0
			? `${failed} message(s) could not be applied yet; Meta's redelivery tries them again.`
			: 'The rest of this batch is applied on Meta’s redelivery.',
	);
}
