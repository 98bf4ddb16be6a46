/**
 * What the WhatsApp tests share: a connected number written straight to D1 (its credentials sealed as the
 * API seals them), and the fake Graph API's control endpoints (test/fake-graph/server.mjs).
 */
import { env } from 'cloudflare:workers';
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
	options: { size?: number; omitFileSize?: boolean; ttlMs?: number } = {},
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
