/** What the e-mail outbound tests share: a workspace that can send, a conversation with the team's messages. */
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { events, mailDeliveries } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import type { MailDeliveryKind } from '../src/model/email';
import { api, db, type SeededOperator, seedWorkspace } from './factories';

/** The sender every sending test uses: the test runtime's EMAIL binding takes any; REFUSING_EMAIL refuses it. */
export const SENDER = 'support@acme.test';

/** A workspace whose admin set a sender (so mail can go out), with its token. */
export async function mailingWorkspace(settings: Record<string, unknown> = {}): Promise<SeededOperator> {
	const seeded = await seedWorkspace();
	const res = await api(seeded.token, 'PUT', '/v3/email/settings', {
		senderName: 'Acme support',
		senderAddress: SENDER,
		...settings,
	});
	expect(res.status).toBe(200);
	return seeded;
}

/** A conversation on `channel` with a contact at `email`, and the operator's messages posted into it. */
export async function conversationWith(
	token: string,
	channel: string,
	texts: string[],
	email = `ada.${crypto.randomUUID().slice(0, 8)}@example.com`,
): Promise<{ conversationId: string; contactId: string; email: string }> {
	const res = await api(token, 'POST', '/v3/conversations', { contact: { email, name: 'Ada' }, channel });
	expect(res.status).toBe(201);
	const body = (await res.json()) as { id: string; contactId: string };
	for (const text of texts) {
		const posted = await api(token, 'POST', '/v3/messages', { conversationId: body.id, text });
		expect(posted.status).toBe(201);
	}
	return { conversationId: body.id, contactId: body.contactId, email };
}

/** A delivery row written straight to D1 (no Queue message: the test drives the consumer's work itself). */
export async function seedDelivery(
	workspaceId: string,
	values: {
		kind?: MailDeliveryKind;
		conversationId: string;
		contactId: string;
		recipient: string;
		firstSeq: number;
		lastSeq: number;
	},
): Promise<string> {
	const now = Date.now();
	const id = newId('mail', now);
	await db.insert(mailDeliveries).values({
		id,
		workspaceId,
		kind: values.kind ?? 'continuation',
		dedupeKey: `test:${id}`,
		recipient: values.recipient,
		conversationId: values.conversationId,
		contactId: values.contactId,
		firstSeq: values.firstSeq,
		lastSeq: values.lastSeq,
		status: 'queued',
		createdAt: now,
		updatedAt: now,
	});
	return id;
}

export async function deliveryRow(id: string) {
	return db.select().from(mailDeliveries).where(eq(mailDeliveries.id, id)).get();
}

export async function conversationDeliveries(conversationId: string) {
	return db.select().from(mailDeliveries).where(eq(mailDeliveries.conversationId, conversationId));
}

/** The recorded events of a type in the workspace (the events consumer writes them). */
export async function recordedEvents(workspaceId: string, type: string) {
	return db
		.select()
		.from(events)
		.where(and(eq(events.workspaceId, workspaceId), eq(events.type, type)));
}
