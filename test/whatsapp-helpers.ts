/**
 * What the WhatsApp tests share: a connected number written straight to D1 (its credentials sealed as the
 * API seals them), and the fake Graph API's control endpoints (test/fake-graph/server.mjs).
 */
import { env, exports } from 'cloudflare:workers';
import { seal } from '../src/auth/sealed-secret';
import { whatsappNumbers } from '../src/db/schema';
import { sealContext } from '../src/domain/channels/whatsapp/graph';
import { newId } from '../src/lib/ids';
import { DEFAULT_GRAPH_URL, DEFAULT_GRAPH_VERSION } from '../src/model/whatsapp';
import { db } from './factories';

export interface SeededNumber {
	id: string;
	workspaceId: string;
	phoneNumberId: string;
	accessToken: string;
	appSecret: string;
}

/** A phone number id no other test uses (the fake is shared by the files running side by side). */
export function uniquePhoneNumberId(): string {
	return `1${String(Date.now()).slice(-9)}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
}

/** A number connected to the workspace, its token pinned in the fake. */
export async function seedNumber(
	workspaceId: string,
	options: { graphUrl?: string; phoneNumberId?: string } = {},
): Promise<SeededNumber> {
	const now = Date.now();
	const id = newId('wan', now);
	const phoneNumberId = options.phoneNumberId ?? uniquePhoneNumberId();
	const accessToken = `EAAG${crypto.randomUUID().replaceAll('-', '')}`;
	const appSecret = crypto.randomUUID().replaceAll('-', '');
	await db.insert(whatsappNumbers).values({
		id,
		workspaceId,
		phoneNumberId,
		businessAccountId: `2${phoneNumberId.slice(1)}`,
		displayPhoneNumber: '+1 555 0100',
		accessTokenSealed: await seal(env, sealContext(workspaceId, id, 'accessToken'), accessToken),
		appSecretSealed: await seal(env, sealContext(workspaceId, id, 'appSecret'), appSecret),
		verifyTokenHash: '0'.repeat(64),
		graphUrl: options.graphUrl ?? DEFAULT_GRAPH_URL,
		graphVersion: DEFAULT_GRAPH_VERSION,
		messagesPerSecond: 80,
		createdAt: now,
		updatedAt: now,
	});
	await fakeGraph('/__fake/numbers', { phoneNumberId, accessToken });
	return { id, workspaceId, phoneNumberId, accessToken, appSecret };
}

/** Calls a control endpoint of the fake: a POST with `body`, else a GET. */
export async function fakeGraph<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${env.WHATSAPP_GRAPH_URL}${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`fake ${path}: ${response.status} ${await response.text()}`);
	return (await response.json()) as T;
}

/** Registers a media file in the fake; its id, as a webhook would name it. */
export async function fakeMedia(
	phoneNumberId: string,
	bytes: Uint8Array,
	mimeType: string,
	options: { size?: number; omitFileSize?: boolean; ttlMs?: number; id?: string } = {},
): Promise<string> {
	let binary = '';
	for (const byte of bytes) binary += String.fromCharCode(byte);
	const { id } = await fakeGraph<{ id: string }>('/__fake/media', {
		base64: btoa(binary),
		mimeType,
		phoneNumberId,
		...options,
	});
	return id;
}

/** The Graph requests the fake received whose path contains `path`. */
export async function fakeRequests(path: string) {
	const { requests } = await fakeGraph<{
		requests: { method: string; path: string; headers: Record<string, string>; body: unknown }[];
	}>(`/__fake/requests?path=${encodeURIComponent(path)}`);
	return requests;
}

/** HMAC-SHA256 of the exact bytes under the app secret, as Meta signs a webhook (`sha256=<hex>`). */
export async function metaSignature(appSecret: string, body: Uint8Array): Promise<string> {
	const key = await crypto.subtle.importKey(
		'raw',
		new TextEncoder().encode(appSecret),
		{ name: 'HMAC', hash: 'SHA-256' },
		false,
		['sign'],
	);
	const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, body));
	return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Meta's JSON: non-ASCII characters escaped as `\uXXXX` with lower-case hex (WHATSAPP-REF §1.2), so the
 * signature is over bytes a re-encoding would change.
 */
export function metaJson(value: unknown): Uint8Array {
	const text = JSON.stringify(value).replace(
		/[\u007f-\uffff]/g,
		(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
	return new TextEncoder().encode(text);
}

/** A webhook payload of `number` carrying `messages` (from their senders) and/or `statuses`. */
export function webhookPayload(
	number: Pick<SeededNumber, 'phoneNumberId'>,
	value: {
		messages?: Record<string, unknown>[];
		statuses?: Record<string, unknown>[];
		profiles?: Record<string, string>;
	},
) {
	const senders = [...new Set((value.messages ?? []).map((m) => String(m.from)))];
	return {
		object: 'whatsapp_business_account',
		entry: [
			{
				id: '102290129340398',
				changes: [
					{
						field: 'messages',
						value: {
							messaging_product: 'whatsapp',
							metadata: { display_phone_number: '15550783881', phone_number_id: number.phoneNumberId },
							...(senders.length > 0
								? {
										contacts: senders.map((wa_id) => ({
											profile: { name: value.profiles?.[wa_id] ?? 'Sheena Nelson' },
											wa_id,
										})),
									}
								: {}),
							...(value.messages ? { messages: value.messages } : {}),
							...(value.statuses ? { statuses: value.statuses } : {}),
						},
					},
				],
			},
		],
	};
}

/** A message of `type` from `from` as Meta's webhook carries it: a fresh wamid unless given. */
export function metaMessage(from: string, type: string, body: Record<string, unknown>, id?: string) {
	return {
		from,
		id: id ?? `wamid.${crypto.randomUUID().replaceAll('-', '')}`,
		timestamp: String(Math.floor(Date.now() / 1000)),
		type,
		...body,
	};
}

/** POSTs a payload (or raw bytes) to the number's webhook, signed with `secret` (the app secret unless given). */
export function postWebhook(
	number: Pick<SeededNumber, 'id' | 'appSecret'>,
	payload: unknown,
	options: { secret?: string | null; raw?: Uint8Array } = {},
): Promise<Response> {
	return (async () => {
		const bytes = options.raw ?? metaJson(payload);
		const headers: Record<string, string> = { 'Content-Type': 'application/json' };
		if (options.secret !== null)
			headers['X-Hub-Signature-256'] = await metaSignature(options.secret ?? number.appSecret, bytes);
		return exports.default.fetch(
			new Request(`https://parley.test/whatsapp/${number.id}/webhook`, { method: 'POST', headers, body: bytes }),
		);
	})();
}

/** A random customer WhatsApp id (their phone number in digits). */
export function randomWaId(): string {
	return `5511${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
}
