/**
 * A scenario's inbound webhooks: `POST /v3/workflows/webhook/{id}` starts a run of the scenario that owns it.
 * A call is accepted when it carries a Token V3 of the owning workspace (the spec's way), or, since many
 * senders (form tools, shops) cannot hold one, the webhook's own secret: a Standard Webhooks signature
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`, checked by the `standardwebhooks` package with its
 * 5-minute tolerance) or the secret itself in `X-Webhook-Secret`. A webhook its owner marks `open` also takes
 * anonymous calls.
 *
 * The secret is never stored: it is derived from the deployment secret, the webhook id and its version
 * (`whsec_` + base64 of HMAC-SHA256, the Standard Webhooks format), shown on creation and on rotation, and a
 * rotation bumps the version, which retires the old secret at once.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { deploymentSecret, webhookSecret } from '../../../auth/secrets';
import { digestsEqual, sha256Hex } from '../../../auth/token';
import type { Database } from '../../../db/client';
import { scenarioWebhooks, WEBHOOK_AUTH } from '../../../db/schema';
import { routeRequest } from '../../../db/sessions';
import { addRoute, routedWorkspace } from '../../../db/shards';
import { NotFound, Unauthorized } from '../../../lib/errors';
import { iso, newId } from '../../../lib/ids';
import { assertScenario } from './scenarios';

/** The header a sender that cannot sign may put the secret in. */
export const SECRET_HEADER = 'X-Webhook-Secret';

const webhookFields = {
	id: z.string().openapi({ description: 'The webhook id (unguessable).', example: 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
	scenarioId: z.string().openapi({ description: 'The scenario a call starts.' }),
	name: z.string().openapi({ description: 'A name for people.' }),
	auth: z.enum(WEBHOOK_AUTH).openapi({
		description:
			'`secret`: a call carries a Token V3, a Standard Webhooks signature or the secret; `open`: anyone may call it.',
	}),
	enabled: z.boolean().openapi({ description: 'Whether calls start runs (a disabled webhook answers 404).' }),
	url: z.string().openapi({ description: 'Where to POST JSON.' }),
	createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
};

export const webhookSchema = z.object(webhookFields).openapi('ScenarioWebhook');

export const webhookWithSecretSchema = z
	.object({
		...webhookFields,
		secret: z.string().openapi({
			description: 'The signing secret (`whsec_…`), shown now only: rotate it to get a new one.',
			example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
		}),
	})
	.openapi('ScenarioWebhookWithSecret');

export const newWebhookSchema = z
	.strictObject({
		name: z.string().trim().min(1).max(120).openapi({ description: 'A name for people.', example: 'Shop orders' }),
		auth: z.enum(WEBHOOK_AUTH).default('secret').openapi({ description: 'Who may call it (default `secret`).' }),
	})
	.openapi('NewScenarioWebhook');

export const webhookChangesSchema = z
	.strictObject({
		name: newWebhookSchema.shape.name,
		auth: z.enum(WEBHOOK_AUTH).openapi({ description: 'Who may call it.' }),
		enabled: z.boolean().openapi({ description: 'Whether calls start runs.' }),
	})
	.partial()
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('ScenarioWebhookChanges', { minProperties: 1 });

type WebhookRow = typeof scenarioWebhooks.$inferSelect;

function webhookView(row: WebhookRow, origin: string): z.infer<typeof webhookSchema> {
	return {
		id: row.id,
		scenarioId: row.scenarioId,
		name: row.name,
		auth: row.auth,
		enabled: row.enabled,
		url: `${origin}/v3/workflows/webhook/${row.id}`,
		createdAt: iso(row.createdAt),
	};
}

/** The webhook's secret at `version`: derived, never stored (see the top of this file). */
function inboundSecret(env: Pick<Env, 'PARLEY_SECRET'>, id: string, version: number): Promise<string> {
	return webhookSecret(deploymentSecret(env), `inbound-webhook:${id}:${version}`);
}

async function withSecret(env: Env, row: WebhookRow, origin: string) {
	return { ...webhookView(row, origin), secret: await inboundSecret(env, row.id, row.secretVersion) };
}

async function webhookRow(db: Database, workspaceId: string, scenarioId: string, id: string) {
	const row = await db
		.select()
		.from(scenarioWebhooks)
		.where(
			and(
				eq(scenarioWebhooks.workspaceId, workspaceId),
				eq(scenarioWebhooks.scenarioId, scenarioId),
				eq(scenarioWebhooks.id, id),
			),
		)
		.get();
	if (!row) throw new NotFound(`Webhook ${id} of scenario ${scenarioId} not found.`);
	return row;
}

export async function createWebhook(
	env: Env,
	db: Database,
	workspaceId: string,
	scenarioId: string,
	input: z.infer<typeof newWebhookSchema>,
	origin: string,
	now = Date.now(),
) {
	await assertScenario(db, workspaceId, scenarioId);
	const row: WebhookRow = {
		id: newId('wh', now),
		workspaceId,
		scenarioId,
		name: input.name,
		auth: input.auth,
		secretVersion: 1,
		enabled: true,
		createdAt: now,
	};
	// Its URL names the webhook alone: the directory sends its calls to the workspace's shard.
	await addRoute(env, 'scenario_webhook', row.id, workspaceId, now);
	await db.insert(scenarioWebhooks).values(row);
	return withSecret(env, row, origin);
}

export async function listWebhooks(db: Database, workspaceId: string, scenarioId: string, origin: string) {
	await assertScenario(db, workspaceId, scenarioId);
	const rows = await db
		.select()
		.from(scenarioWebhooks)
		.where(and(eq(scenarioWebhooks.workspaceId, workspaceId), eq(scenarioWebhooks.scenarioId, scenarioId)))
		.orderBy(desc(scenarioWebhooks.createdAt))
		.limit(200);
	return { data: rows.map((row) => webhookView(row, origin)) };
}

export async function updateWebhook(
	db: Database,
	workspaceId: string,
	scenarioId: string,
	id: string,
	changes: z.infer<typeof webhookChangesSchema>,
	origin: string,
) {
	const current = await webhookRow(db, workspaceId, scenarioId, id);
	const after = { ...current, ...changes };
	await db
		.update(scenarioWebhooks)
		.set(changes)
		.where(and(eq(scenarioWebhooks.workspaceId, workspaceId), eq(scenarioWebhooks.id, id)));
	return webhookView(after, origin);
}

export async function deleteWebhook(db: Database, workspaceId: string, scenarioId: string, id: string) {
	await webhookRow(db, workspaceId, scenarioId, id);
	await db
		.delete(scenarioWebhooks)
		.where(and(eq(scenarioWebhooks.workspaceId, workspaceId), eq(scenarioWebhooks.id, id)));
}

/** A new secret for the webhook; the old one stops working at once. */
export async function rotateWebhookSecret(
	env: Env,
	db: Database,
	workspaceId: string,
	scenarioId: string,
	id: string,
	origin: string,
) {
	const current = await webhookRow(db, workspaceId, scenarioId, id);
	const [row] = await db
		.update(scenarioWebhooks)
		.set({ secretVersion: current.secretVersion + 1 })
		.where(and(eq(scenarioWebhooks.workspaceId, workspaceId), eq(scenarioWebhooks.id, id)))
		.returning();
	return withSecret(env, row as WebhookRow, origin);
}

/** An enabled webhook by its id alone (the inbound path has no workspace until the webhook names it). */
export async function enabledWebhook(env: Env, db: Database, id: string) {
	// The path names the webhook alone: the request reads its workspace's shard (src/db/shards.ts).
	const workspaceId = await routedWorkspace(env, 'scenario_webhook', id);
	if (workspaceId) routeRequest(db, workspaceId);
	const row = await db.select().from(scenarioWebhooks).where(eq(scenarioWebhooks.id, id)).get();
	if (!row?.enabled) throw new NotFound(`Webhook ${id} not found (or disabled).`);
	return row;
}

/** How a call without a Token V3 proved it may start the webhook's scenario. */
export type CallerProof = 'signature' | 'secret' | 'open';

/**
 * Checks a call that carries no Token V3: a Standard Webhooks signature over the raw body, else the secret
 * in `X-Webhook-Secret`, else the webhook must be `open`. A 401 in the error body otherwise.
 */
export async function proveCall(
	env: Env,
	webhook: WebhookRow,
	headers: Headers,
	rawBody: string,
): Promise<CallerProof> {
	const secret = await inboundSecret(env, webhook.id, webhook.secretVersion);
	if (headers.has('webhook-signature')) {
		try {
			new Webhook(secret).verify(rawBody, {
				'webhook-id': headers.get('webhook-id') ?? '',
				'webhook-timestamp': headers.get('webhook-timestamp') ?? '',
				'webhook-signature': headers.get('webhook-signature') ?? '',
			});
			return 'signature';
		} catch (error) {
			if (!(error instanceof WebhookVerificationError)) throw error;
			throw new Unauthorized(
				`Invalid webhook signature: ${error.message.toLowerCase()} (sign "id.timestamp.body" with the webhook's secret; timestamps older than 5 minutes are refused).`,
			);
		}
	}
	const given = headers.get(SECRET_HEADER);
	if (given !== null) {
		// Compared as digests: equal lengths, in constant time, whatever was sent.
		if (!digestsEqual(await sha256Hex(given), await sha256Hex(secret)))
			throw new Unauthorized(`Invalid ${SECRET_HEADER}: not this webhook's secret.`);
		return 'secret';
	}
	if (webhook.auth === 'open') return 'open';
	throw new Unauthorized(
		`This webhook needs "Authorization: Bearer <Token V3>", a Standard Webhooks signature, or its secret in ${SECRET_HEADER}.`,
		false,
	);
}
