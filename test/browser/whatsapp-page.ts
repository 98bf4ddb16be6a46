// What the browser's WhatsApp tests share: a number connected through the API, the fake Graph API's controls
// (test/fake-graph/server.mjs), and playing Meta: webhooks signed with the number's app secret.
import { createHmac, randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { api } from './harness';
import { baseUrl } from './widget-page';

export const fakeGraphUrl = inject('fakeGraphUrl');

export interface ConnectedNumber {
	id: string;
	phoneNumberId: string;
	businessAccountId: string;
	appSecret: string;
	accessToken: string;
}

/** A phone number id no other test uses. */
export function uniquePhoneNumberId(): string {
	return `1${String(Date.now()).slice(-9)}${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`;
}

/** A random customer WhatsApp id (their phone number in digits). */
export function randomWaId(): string {
	return `5511${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
}

/** Calls a control endpoint of the fake: a POST with `body`, else a GET. */
export async function fakeGraph<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T> {
	const res = await fetch(`${fakeGraphUrl}${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!res.ok) throw new Error(`fake ${path}: ${res.status} ${await res.text()}`);
	return (await res.json()) as T;
}

/** What the fake Graph API received on a number's messages endpoint, with the WhatsApp ids it answered. */
export async function sentMessages(phoneNumberId: string) {
	const { messages } = await fakeGraph<{
		messages: { to: string; type: string; body: Record<string, unknown>; wamid: string }[];
	}>(`/__fake/messages?phoneNumberId=${phoneNumberId}`);
	return messages;
}

/** Connects a number through the API (its token pinned in the fake); throws unless 201. */
export async function connectNumber(token: string): Promise<ConnectedNumber> {
	const phoneNumberId = uniquePhoneNumberId();
	const businessAccountId = `2${phoneNumberId.slice(1)}`;
	const accessToken = `EAAG${randomBytes(16).toString('hex')}`;
	const appSecret = randomBytes(16).toString('hex');
	const { status, body } = await api(baseUrl, token, 'POST', '/v3/whatsapp/numbers', {
		phoneNumberId,
		businessAccountId,
		accessToken,
		appSecret,
		displayPhoneNumber: '+1 555 078 3881',
	});
	if (status !== 201) throw new Error(`POST /v3/whatsapp/numbers answered ${status}: ${JSON.stringify(body)}`);
	await fakeGraph('/__fake/numbers', { phoneNumberId, accessToken });
	return { id: (body as { id: string }).id, phoneNumberId, businessAccountId, appSecret, accessToken };
}

/** A customer's text message as Meta's webhook carries it, sent `secondsAgo` ago by Meta's clock. */
export function textMessage(from: string, text: string, secondsAgo = 0) {
	return {
		from,
		id: `wamid.${randomBytes(18).toString('base64url')}`,
		timestamp: String(Math.floor(Date.now() / 1000) - secondsAgo),
		type: 'text',
		text: { body: text },
	};
}

/** Meta's webhook envelope for the number: `messages` from their senders (named `name`), and/or `statuses`. */
export function webhookPayload(
	number: ConnectedNumber,
	value: { messages?: { from: string }[]; statuses?: Record<string, unknown>[]; name?: string },
) {
	const senders = [...new Set((value.messages ?? []).map((m) => m.from))];
	return {
		object: 'whatsapp_business_account',
		entry: [
			{
				id: number.businessAccountId,
				changes: [
					{
						field: 'messages',
						value: {
							messaging_product: 'whatsapp',
							metadata: { display_phone_number: '15550783881', phone_number_id: number.phoneNumberId },
							...(senders.length
								? { contacts: senders.map((wa_id) => ({ profile: { name: value.name ?? 'Sheena Nelson' }, wa_id })) }
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

/** POSTs a payload to the number's webhook as Meta does: signed with the app secret over the exact bytes. */
export async function postWebhook(number: ConnectedNumber, payload: unknown): Promise<number> {
	const bytes = Buffer.from(JSON.stringify(payload));
	const signature = `sha256=${createHmac('sha256', number.appSecret).update(bytes).digest('hex')}`;
	const res = await fetch(`${baseUrl}/whatsapp/${number.id}/webhook`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signature },
		body: bytes,
	});
	await res.arrayBuffer();
	return res.status;
}
