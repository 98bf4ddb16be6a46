/**
 * A workspace's connected WhatsApp Business numbers: Meta's ids, the access token and app secret (sealed,
 * never returned: the view says only that they are set), the verify token Parley makes up for Meta's
 * webhook check (shown once, stored as its SHA-256), the Graph API's URL and version, and the sending pace.
 * A phone number id belongs to one workspace across the deployment, since webhooks are routed by it.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq } from 'drizzle-orm';
import { seal } from '../../../auth/sealed-secret';
import { randomBase62, sha256Hex } from '../../../auth/token';
import type { Database } from '../../../db/client';
import { whatsappNumbers } from '../../../db/schema';
import { addRoute } from '../../../db/shards';
import { Conflict, Invalid, NotFound } from '../../../lib/errors';
import { urlRefusal } from '../../../lib/guarded-fetch';
import { iso, newId } from '../../../lib/ids';
import { callableUrl } from '../../../lib/url-schemas';
import {
	DEFAULT_GRAPH_URL,
	DEFAULT_GRAPH_VERSION,
	DEFAULT_MESSAGES_PER_SECOND,
	GRAPH_VERSION_PATTERN,
} from '../../../model/whatsapp';
import { deploymentGraphUrl, type GraphEnv, sealContext } from './graph';

/** Meta raises a number's throughput up to 1,000 messages a second (WHATSAPP-REF §7). */
export const MAX_MESSAGES_PER_SECOND = 1000;

const metaId = z.string().regex(/^\d{1,32}$/, 'must be Meta’s numeric id');
const secret = z.string().trim().min(8).max(4096);

export const whatsappNumberSchema = z
	.object({
		id: z.string().openapi({ description: 'The connection id.', example: 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		phoneNumberId: z.string().openapi({ description: 'Meta’s phone number id.', example: '106540352242922' }),
		businessAccountId: z.string().openapi({ description: 'Meta’s WhatsApp Business Account id.' }),
		displayPhoneNumber: z.string().nullable().openapi({ description: 'The number as people dial it.' }),
		accessTokenSet: z.literal(true).openapi({ description: 'The access token is stored (never returned).' }),
		appSecretSet: z.literal(true).openapi({ description: 'The app secret is stored (never returned).' }),
		graphUrl: z.string().openapi({ description: 'The Graph API base URL.', example: DEFAULT_GRAPH_URL }),
		graphVersion: z.string().openapi({ description: 'The Graph API version.', example: DEFAULT_GRAPH_VERSION }),
		messagesPerSecond: z.number().int().openapi({ description: 'The sending pace.', example: 80 }),
		webhookUrl: z.string().openapi({
			description: 'The callback URL to give Meta (App Dashboard > WhatsApp > Configuration).',
			example: 'https://parley.acme.example/whatsapp/wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T/webhook',
		}),
		createdAt: z.string().openapi({ description: 'When it was connected (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When its settings last changed (ISO 8601).' }),
	})
	.openapi('WhatsappNumber');

export const whatsappNumberWithTokenSchema = whatsappNumberSchema
	.extend({
		verifyToken: z.string().openapi({
			description: 'The verify token to give Meta with the callback URL. Shown only now; rotate it to get a new one.',
		}),
	})
	.openapi('WhatsappNumberWithVerifyToken');

const settableFields = {
	businessAccountId: metaId.openapi({ description: 'Meta’s WhatsApp Business Account id.' }),
	accessToken: secret.openapi({ description: 'A system user’s permanent access token (never returned).' }),
	appSecret: secret.openapi({ description: 'The Meta app’s secret, which signs webhooks (never returned).' }),
	displayPhoneNumber: z
		.string()
		.trim()
		.min(1)
		.max(32)
		.nullable()
		.optional()
		.openapi({ description: 'The number as people dial it, for the console.', example: '+1 555 078 3881' }),
	graphUrl: callableUrl(512).optional().openapi({
		description: 'Another Graph API base URL (a staging proxy): https and public. Default: Meta’s.',
	}),
	graphVersion: z
		.string()
		.regex(GRAPH_VERSION_PATTERN, 'like v25.0')
		.optional()
		.openapi({
			description: `The Graph API version. Default: ${DEFAULT_GRAPH_VERSION}.`,
			example: DEFAULT_GRAPH_VERSION,
		}),
	messagesPerSecond: z
		.number()
		.int()
		.min(1)
		.max(MAX_MESSAGES_PER_SECOND)
		.optional()
		.openapi({
			description: `Messages a second the sending Queue keeps under: Meta's ${DEFAULT_MESSAGES_PER_SECOND} by default, up to ${MAX_MESSAGES_PER_SECOND} once Meta raised the number's throughput.`,
			example: DEFAULT_MESSAGES_PER_SECOND,
		}),
};

export const newWhatsappNumberSchema = z
	.strictObject({
		phoneNumberId: metaId.openapi({ description: 'Meta’s phone number id (WhatsApp Manager > API Setup).' }),
		...settableFields,
	})
	.openapi('NewWhatsappNumber');

export const whatsappNumberChangesSchema = z
	.strictObject({
		businessAccountId: settableFields.businessAccountId.optional(),
		accessToken: settableFields.accessToken.optional(),
		appSecret: settableFields.appSecret.optional(),
		displayPhoneNumber: settableFields.displayPhoneNumber,
		graphUrl: settableFields.graphUrl,
		graphVersion: settableFields.graphVersion,
		messagesPerSecond: settableFields.messagesPerSecond,
	})
	.refine((changes) => Object.keys(changes).length > 0, 'give at least one field to change')
	.openapi('WhatsappNumberChanges', { minProperties: 1 });

type NumberRow = typeof whatsappNumbers.$inferSelect;
export type WhatsappNumberView = z.infer<typeof whatsappNumberSchema>;

/** The webhook URL of a connection, on the API's origin the admin reached. */
export function webhookUrl(origin: string, id: string): string {
	return `${origin}/whatsapp/${id}/webhook`;
}

function view(row: NumberRow, origin: string): WhatsappNumberView {
	return {
		id: row.id,
		phoneNumberId: row.phoneNumberId,
		businessAccountId: row.businessAccountId,
		displayPhoneNumber: row.displayPhoneNumber,
		accessTokenSet: true,
		appSecretSet: true,
		graphUrl: row.graphUrl,
		graphVersion: row.graphVersion,
		messagesPerSecond: row.messagesPerSecond,
		webhookUrl: webhookUrl(origin, row.id),
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

/** A Graph URL as stored: Meta's (or the deployment's own) as is; any other must pass the outbound guard. */
function checkedGraphUrl(env: GraphEnv, raw: string | undefined): string | undefined {
	if (raw === undefined) return undefined;
	const url = raw.replace(/\/+$/, '');
	if (url === DEFAULT_GRAPH_URL || url === deploymentGraphUrl(env)) return url;
	const problem = urlRefusal(env, url);
	if (problem) throw new Invalid(`The Graph URL ${problem}.`, { field: ['graphUrl'] });
	return url;
}

/** A new verify token (shown once) and its hash (stored). */
async function newVerifyToken(): Promise<{ token: string; hash: string }> {
	const token = randomBase62(32);
	return { token, hash: await sha256Hex(token) };
}

async function rowOf(db: Database, workspaceId: string, id: string): Promise<NumberRow> {
	const row = await db
		.select()
		.from(whatsappNumbers)
		.where(and(eq(whatsappNumbers.workspaceId, workspaceId), eq(whatsappNumbers.id, id)))
		.get();
	if (!row) throw new NotFound(`WhatsApp number ${id} not found.`);
	return row;
}

/** The workspace's numbers, oldest first. */
export async function listNumbers(db: Database, workspaceId: string, origin: string) {
	const rows = await db
		.select()
		.from(whatsappNumbers)
		.where(eq(whatsappNumbers.workspaceId, workspaceId))
		.orderBy(asc(whatsappNumbers.createdAt), asc(whatsappNumbers.id));
	return rows.map((row) => view(row, origin));
}

export async function getNumber(db: Database, workspaceId: string, id: string, origin: string) {
	return view(await rowOf(db, workspaceId, id), origin);
}

/** Connects a number; its view with the verify token (shown only now). 409 when a workspace has it already. */
export async function connectNumber(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newWhatsappNumberSchema>,
	origin: string,
	now = Date.now(),
) {
	const id = newId('wan', now);
	const verify = await newVerifyToken();
	const row: NumberRow = {
		id,
		workspaceId,
		phoneNumberId: input.phoneNumberId,
		businessAccountId: input.businessAccountId,
		displayPhoneNumber: input.displayPhoneNumber ?? null,
		accessTokenSealed: await seal(env, sealContext(workspaceId, id, 'accessToken'), input.accessToken),
		appSecretSealed: await seal(env, sealContext(workspaceId, id, 'appSecret'), input.appSecret),
		verifyTokenHash: verify.hash,
		graphUrl: checkedGraphUrl(env, input.graphUrl) ?? DEFAULT_GRAPH_URL,
		graphVersion: input.graphVersion ?? DEFAULT_GRAPH_VERSION,
		messagesPerSecond: input.messagesPerSecond ?? DEFAULT_MESSAGES_PER_SECOND,
		createdAt: now,
		updatedAt: now,
	};
	// Its webhook's path names the connection: the directory sends it to the workspace's shard.
	await addRoute(env, 'whatsapp_number', id, workspaceId, now);
	// The unique index decides, so two workspaces connecting the same number at once cannot both have it.
	const inserted = await db
		.insert(whatsappNumbers)
		.values(row)
		.onConflictDoNothing()
		.returning({ id: whatsappNumbers.id });
	if (inserted.length === 0) throw new Conflict(`Phone number id ${input.phoneNumberId} is already connected.`);
	return { ...view(row, origin), verifyToken: verify.token };
}

/** Changes a number's settings or credentials (a credential given replaces the stored one). */
export async function updateNumber(
	env: GraphEnv,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof whatsappNumberChangesSchema>,
	origin: string,
	now = Date.now(),
) {
	const row = await rowOf(db, workspaceId, id);
	const set: Partial<NumberRow> = { updatedAt: Math.max(now, row.updatedAt + 1) };
	if (changes.businessAccountId !== undefined) set.businessAccountId = changes.businessAccountId;
	if (changes.displayPhoneNumber !== undefined) set.displayPhoneNumber = changes.displayPhoneNumber;
	if (changes.graphVersion !== undefined) set.graphVersion = changes.graphVersion;
	if (changes.messagesPerSecond !== undefined) set.messagesPerSecond = changes.messagesPerSecond;
	const graphUrl = checkedGraphUrl(env, changes.graphUrl);
	if (graphUrl !== undefined) set.graphUrl = graphUrl;
	if (changes.accessToken !== undefined) {
		set.accessTokenSealed = await seal(env, sealContext(workspaceId, id, 'accessToken'), changes.accessToken);
	}
	if (changes.appSecret !== undefined) {
		set.appSecretSealed = await seal(env, sealContext(workspaceId, id, 'appSecret'), changes.appSecret);
	}
	await db
		.update(whatsappNumbers)
		.set(set)
		.where(and(eq(whatsappNumbers.workspaceId, workspaceId), eq(whatsappNumbers.id, id)));
	return view({ ...row, ...set }, origin);
}

/** A new verify token for the number (the old one stops working); shown only now. */
export async function rotateVerifyToken(
	db: Database,
	workspaceId: string,
	id: string,
	origin: string,
	now = Date.now(),
) {
	const row = await rowOf(db, workspaceId, id);
	const verify = await newVerifyToken();
	const updatedAt = Math.max(now, row.updatedAt + 1);
	await db
		.update(whatsappNumbers)
		.set({ verifyTokenHash: verify.hash, updatedAt })
		.where(and(eq(whatsappNumbers.workspaceId, workspaceId), eq(whatsappNumbers.id, id)));
	return { ...view({ ...row, updatedAt }, origin), verifyToken: verify.token };
}

/** Disconnects a number: its webhooks are refused from then on; its conversations stay. */
export async function removeNumber(db: Database, workspaceId: string, id: string): Promise<void> {
	const removed = await db
		.delete(whatsappNumbers)
		.where(and(eq(whatsappNumbers.workspaceId, workspaceId), eq(whatsappNumbers.id, id)))
		.returning({ id: whatsappNumbers.id });
	if (removed.length === 0) throw new NotFound(`WhatsApp number ${id} not found.`);
}
