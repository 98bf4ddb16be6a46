/**
 * Delivering a raw message to the Worker's real `email()` handler as Email Routing does: a
 * ForwardableEmailMessage-shaped object (the platform's input, not Parley's code) that records what the
 * handler asks of it (`setReject`, `forward`, `reply`).
 */
import { exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { api, seedWorkspace } from './factories';

/**
 * The Worker's default export as the runtime hands it to a test: typed as a Fetcher (fetch and connect), it
 * also carries the module's other handlers, called as Email Routing calls them (the runtime adds env and ctx).
 */
const worker = exports.default as unknown as { email(message: ForwardableEmailMessage): Promise<void> };

export interface Delivered {
	rejected: string[];
	forwarded: string[];
	replied: number;
}

/** The object Email Routing hands `email()`: the envelope, the raw bytes as a stream, and its actions. */
export function emailMessage(raw: string | Uint8Array, envelope: { from: string; to: string }) {
	const bytes = typeof raw === 'string' ? new TextEncoder().encode(raw) : raw;
	const delivered: Delivered = { rejected: [], forwarded: [], replied: 0 };
	const headerBlock = new TextDecoder().decode(bytes.slice(0, 64 * 1024)).split(/\r?\n\r?\n/)[0] ?? '';
	const headers = new Headers();
	for (const line of headerBlock.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
		const colon = line.indexOf(':');
		if (colon > 0) {
			try {
				headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
			} catch {
				// A header Headers refuses (a non-ASCII value) is still in the raw message.
			}
		}
	}
	const message = {
		from: envelope.from,
		to: envelope.to,
		headers,
		raw: new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(bytes);
				controller.close();
			},
		}),
		rawSize: bytes.byteLength,
		setReject(reason: string) {
			delivered.rejected.push(reason);
		},
		async forward(rcptTo: string) {
			delivered.forwarded.push(rcptTo);
			return { messageId: 'forwarded' };
		},
		async reply() {
			delivered.replied++;
			return { messageId: 'replied' };
		},
	};
	return { message: message as unknown as ForwardableEmailMessage, delivered };
}

/** Delivers `raw` to the Worker's `email()` handler and waits for everything it started. */
export async function deliver(raw: string | Uint8Array, envelope: { from: string; to: string }): Promise<Delivered> {
	const { message, delivered } = emailMessage(raw, envelope);
	await worker.email(message);
	return delivered;
}

/** A workspace with an admin token and one inbound address. */
export async function mailWorkspace(address?: string) {
	const seeded = await seedWorkspace();
	const inbox = address ?? `support-${seeded.workspaceId.slice(-8).toLowerCase()}@acme.example`;
	const res = await api(seeded.token, 'POST', '/v3/email/addresses', { address: inbox });
	expect(res.status).toBe(201);
	return { ...seeded, inbox };
}

/** A received mail as the API lists it. */
export interface InboundMailView {
	id: string;
	status: string;
	kind: string;
	failure: string | null;
	subject: string | null;
	conversationId: string | null;
	messageId: string | null;
	authentication: Record<string, string> | null;
	possiblyForged: boolean;
	envelopeTo: string;
}

/** The workspace's received mails, newest first (the first page). */
export async function receivedMails(token: string, query = ''): Promise<InboundMailView[]> {
	const res = await api(token, 'GET', `/v3/email/inbound${query}`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: InboundMailView[] }).data;
}

/** The mail received last, by the workspace's list. */
export async function lastMail(token: string): Promise<InboundMailView> {
	const [mail] = await receivedMails(token, '?limit=1');
	if (!mail) throw new Error('no mail received');
	return mail;
}

/** A conversation as the API reads it. */
export async function conversationOf(token: string, id: string) {
	const res = await api(token, 'GET', `/v3/conversations/${id}`);
	expect(res.status).toBe(200);
	return (await res.json()) as {
		channel: string;
		subject: string | null;
		status: string;
		contact: { id: string; email: string | null; name: string | null };
	};
}
