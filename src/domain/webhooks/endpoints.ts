/**
 * Outbound webhook endpoints: the URLs a workspace wants its events sent to, with the event types each wants
 * and its signing secrets. A secret is derived (`whsec_…`, from the deployment secret, the endpoint id and
 * the secret's version), shown when made and never stored. Rotating makes a new one and keeps the old one
 * signing for a while (24 h by default): every delivery carries a signature by each active secret, so a
 * receiver can switch to the new secret whenever it likes, without a failed delivery.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import { deploymentSecret, webhookSecret } from '../../auth/secrets';
import type { Database } from '../../db/client';
import { type EndpointSecret, webhookEndpoints } from '../../db/schema';
import { Invalid, NotFound } from '../../lib/errors';
import { urlRefusal } from '../../lib/guarded-fetch';
import { iso, isoOrNull, newId } from '../../lib/ids';
import { callableUrl } from '../../lib/url-schemas';
import { DOMAIN_EVENT_TYPES } from '../../model/events';

/** How long a rotated-out secret goes on signing, unless the rotation says otherwise. */
const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
const MAX_ENDPOINTS = 50;

const eventTypes = z
	.array(z.enum(['*', ...DOMAIN_EVENT_TYPES]))
	.min(1)
	.max(DOMAIN_EVENT_TYPES.length)
	.openapi({
		description: 'The event types it receives (`*` for all); see docs/WEBHOOK_EVENTS.md.',
		example: ['conversation.created', 'scenario.run_ended'],
	});

const url = callableUrl(2000).openapi({
	description:
		'Where deliveries are POSTed: an https URL of a public host (no local network name or private address), without credentials, on the default port or one from 1024.',
});

export const newEndpointSchema = z
	.strictObject({
		url,
		events: eventTypes,
		description: z.string().trim().max(200).default('').openapi({ description: 'A note for people.' }),
	})
	.openapi('NewWebhookEndpoint');

export const endpointChangesSchema = z
	.strictObject({
		url,
		events: eventTypes,
		description: z.string().trim().max(200).openapi({ description: 'A note for people.' }),
		enabled: z.boolean().openapi({
			description:
				'Stop or start deliveries: events while disabled are not sent, and tries still due fail. Enabling clears a disabling by failures.',
		}),
	})
	.partial()
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('WebhookEndpointChanges', { minProperties: 1 });

export const rotationSchema = z
	.strictObject({
		overlapSeconds: z
			.int()
			.min(0)
			.max(7 * 24 * 3600)
			.default(DEFAULT_OVERLAP_SECONDS)
			.openapi({ description: 'How long the current secrets go on signing (default 24 h; 0 retires them now).' }),
	})
	.openapi('WebhookSecretRotation');

const secretView = z
	.object({
		version: z.number().int().openapi({ description: 'The secret’s number, from 1.' }),
		createdAt: z.string().openapi({ description: 'When it was made (ISO 8601).' }),
		expiresAt: z.string().nullable().openapi({ description: 'When it stops signing (ISO 8601); null for the newest.' }),
	})
	.openapi('WebhookSecretInfo');

const endpointFields = {
	id: z.string().openapi({ description: 'The endpoint id.', example: 'whe_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
	url: z.string().openapi({ description: 'Where deliveries go.' }),
	description: z.string().openapi({ description: 'A note for people.' }),
	events: z.array(z.string()).openapi({ description: 'The event types it receives (`*`: all).' }),
	enabled: z.boolean().openapi({ description: 'Whether deliveries are made.' }),
	disabledReason: z
		.string()
		.nullable()
		.openapi({ description: 'Why Parley disabled it (five days of failures); null otherwise.' }),
	failingSince: z.string().nullable().openapi({ description: 'Since when every try failed (ISO 8601), or null.' }),
	secrets: z.array(secretView).openapi({ description: 'The secrets signing now (values are shown only once).' }),
	createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
	updatedAt: z.string().openapi({ description: 'When it last changed (ISO 8601).' }),
};

export const endpointSchema = z.object(endpointFields).openapi('WebhookEndpoint');

export const endpointWithSecretSchema = z
	.object({
		...endpointFields,
		secret: z.string().openapi({
			description: 'The newest signing secret (`whsec_…`): shown now only.',
			example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
		}),
	})
	.openapi('WebhookEndpointWithSecret');

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** The secrets that sign at `now`: the newest, and any rotated out that has not expired yet. */
export function activeSecrets(row: EndpointRow, now: number): EndpointSecret[] {
	return row.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now);
}

function endpointView(row: EndpointRow, now = Date.now()): z.infer<typeof endpointSchema> {
	return {
		id: row.id,
		url: row.url,
		description: row.description,
		events: row.eventTypes,
		enabled: row.enabled,
		disabledReason: row.disabledReason,
		failingSince: isoOrNull(row.failingSince),
		secrets: activeSecrets(row, now).map((s) => ({
			version: s.version,
			createdAt: iso(s.createdAt),
			expiresAt: isoOrNull(s.expiresAt),
		})),
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

/** The secret of an endpoint at `version`: derived, never stored. */
export function endpointSecret(env: Pick<Env, 'PARLEY_SECRET'>, id: string, version: number): Promise<string> {
	return webhookSecret(deploymentSecret(env), `outbound-webhook:${id}:${version}`);
}

async function withSecret(env: Env, row: EndpointRow) {
	const newest = row.secrets.at(-1) as EndpointSecret;
	return { ...endpointView(row), secret: await endpointSecret(env, row.id, newest.version) };
}

function checkedUrl(env: Env, value: string): string {
	const refused = urlRefusal(env, value);
	if (refused) throw new Invalid(`url: ${refused}`, { field: ['url'] });
	return value;
}

/** One endpoint of the workspace; NotFound otherwise. */
export async function endpointRow(db: Database, workspaceId: string, id: string): Promise<EndpointRow> {
	const row = await db
		.select()
		.from(webhookEndpoints)
		.where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)))
		.get();
	if (!row) throw new NotFound(`Webhook endpoint ${id} not found.`);
	return row;
}

export async function createEndpoint(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newEndpointSchema>,
	now = Date.now(),
) {
	const existing = await db
		.select({ id: webhookEndpoints.id })
		.from(webhookEndpoints)
		.where(eq(webhookEndpoints.workspaceId, workspaceId))
		.limit(MAX_ENDPOINTS);
	if (existing.length >= MAX_ENDPOINTS) {
		throw new Invalid(`A workspace may have ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
	}
	const row: EndpointRow = {
		id: newId('whe', now),
		workspaceId,
		url: checkedUrl(env, input.url),
		description: input.description,
		eventTypes: [...new Set(input.events)],
		enabled: true,
		disabledReason: null,
		secrets: [{ version: 1, createdAt: now, expiresAt: null }],
		failingSince: null,
		createdAt: now,
		updatedAt: now,
	};
	await db.insert(webhookEndpoints).values(row);
	return withSecret(env, row);
}

export async function listEndpoints(db: Database, workspaceId: string) {
	const rows = await db
		.select()
		.from(webhookEndpoints)
		.where(eq(webhookEndpoints.workspaceId, workspaceId))
		.orderBy(desc(webhookEndpoints.createdAt))
		.limit(MAX_ENDPOINTS);
	return { data: rows.map((row) => endpointView(row)) };
}

export async function getEndpoint(db: Database, workspaceId: string, id: string) {
	return endpointView(await endpointRow(db, workspaceId, id));
}

export async function updateEndpoint(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof endpointChangesSchema>,
	now = Date.now(),
) {
	const current = await endpointRow(db, workspaceId, id);
	const set: Partial<EndpointRow> = { updatedAt: now };
	if (changes.url !== undefined) set.url = checkedUrl(env, changes.url);
	if (changes.events !== undefined) set.eventTypes = [...new Set(changes.events)];
	if (changes.description !== undefined) set.description = changes.description;
	if (changes.enabled !== undefined) {
		set.enabled = changes.enabled;
		// Enabled again by a person: its failures are forgiven, and it gets five days anew.
		if (changes.enabled) Object.assign(set, { disabledReason: null, failingSince: null });
	}
	await db
		.update(webhookEndpoints)
		.set(set)
		.where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)));
	return endpointView({ ...current, ...set });
}

/** Deletes the endpoint; its deliveries still queued find it gone and stop. */
export async function deleteEndpoint(db: Database, workspaceId: string, id: string) {
	await endpointRow(db, workspaceId, id);
	await db
		.delete(webhookEndpoints)
		.where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)));
}

/**
 * A new secret, newest from now on; the secrets signing now go on signing for `overlapSeconds` (so a receiver
 * can move to the new one without a failed delivery), then stop.
 */
export async function rotateEndpointSecret(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	overlapSeconds: number,
	now = Date.now(),
) {
	const current = await endpointRow(db, workspaceId, id);
	const expiresAt = now + overlapSeconds * 1000;
	const kept = activeSecrets(current, now).map((s) => ({
		...s,
		expiresAt: s.expiresAt === null ? expiresAt : Math.min(s.expiresAt, expiresAt),
	}));
	const version = Math.max(...current.secrets.map((s) => s.version)) + 1;
	const secrets = [...kept, { version, createdAt: now, expiresAt: null }];
	const after = { ...current, secrets, updatedAt: now };
	await db
		.update(webhookEndpoints)
		.set({ secrets, updatedAt: now })
		.where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)));
	return withSecret(env, after);
}
