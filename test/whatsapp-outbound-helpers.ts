/** What the WhatsApp outbound tests share: a WhatsApp conversation with an open window, and what the fake sent. */
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { contacts, whatsappDeliveries, whatsappWindows } from '../src/db/schema';
import { enqueueWhatsapp } from '../src/domain/channels/whatsapp/outbox';
import type { OutgoingBody } from '../src/engines/whatsapp/outgoing';
import { api, db, type SeededOperator, seedWorkspace } from './factories';
import { fakeGraph, type SeededNumber, seedNumber } from './whatsapp-helpers';

/** A workspace with one connected number. */
export async function whatsappWorkspace(): Promise<SeededOperator & { number: SeededNumber }> {
	const seeded = await seedWorkspace();
	return { ...seeded, number: await seedNumber(seeded.workspaceId) };
}

/** A customer's WhatsApp id no other test uses. */
export function uniqueWaId(): string {
	return `1555${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
}

/**
 * A WhatsApp conversation of a contact with a WhatsApp id, started through the API; its 24-hour window open
 * (the customer wrote `lastInboundAgoMs` ago) unless `lastInboundAgoMs` is null.
 */
export async function whatsappConversation(
	token: string,
	number: SeededNumber,
	lastInboundAgoMs: number | null = 60_000,
): Promise<{ conversationId: string; contactId: string; waId: string }> {
	const waId = uniqueWaId();
	const res = await api(token, 'POST', '/v3/conversations', {
		contact: { phone: `+${waId}`, name: 'Ada' },
		channel: 'whatsapp',
	});
	expect(res.status).toBe(201);
	const { id, contactId } = (await res.json()) as { id: string; contactId: string };
	await db.update(contacts).set({ whatsappId: waId }).where(eq(contacts.id, contactId));
	if (lastInboundAgoMs !== null) await openWindow(number, waId, Date.now() - lastInboundAgoMs);
	return { conversationId: id, contactId, waId };
}

/** Records that the customer wrote to the number at `at`, as the inbound side does. */
export async function openWindow(number: SeededNumber, waId: string, at = Date.now()) {
	await db
		.insert(whatsappWindows)
		.values({ numberId: number.id, waId, workspaceId: number.workspaceId, lastInboundAt: at })
		.onConflictDoUpdate({ target: [whatsappWindows.numberId, whatsappWindows.waId], set: { lastInboundAt: at } });
}

export interface FakeSent {
	to: string;
	type: string;
	body: OutgoingBody;
	wamid: string;
	at: number;
}

/** What the fake accepted from the number, and what it refused. */
export async function fakeMessages(phoneNumberId: string) {
	return fakeGraph<{ messages: FakeSent[]; refused: Array<{ code: number; details: string; at: number }> }>(
		`/__fake/messages?phoneNumberId=${phoneNumberId}`,
	);
}

/** The number's deliveries to `waId`, oldest first. */
export async function deliveriesTo(waId: string) {
	return db
		.select()
		.from(whatsappDeliveries)
		.where(eq(whatsappDeliveries.recipient, waId))
		.orderBy(whatsappDeliveries.createdAt);
}

/** Registers approved templates of the number's business account in the fake. */
export async function registerTemplates(
	number: SeededNumber,
	templates: Array<{ name: string; language: string; body?: string; status?: string; parameter_format?: string }>,
) {
	await fakeGraph('/__fake/templates', {
		businessAccountId: `2${number.phoneNumberId.slice(1)}`,
		phoneNumberId: number.phoneNumberId,
		templates: templates.map(({ body, ...rest }) => ({
			...rest,
			components: body === undefined ? [] : [{ type: 'BODY', text: body }],
		})),
	});
}

/** A template delivery (no variables) written with its Queue message, as a campaign would enqueue it. */
export async function seedTemplateDelivery(
	workspaceId: string,
	number: SeededNumber,
	waId: string,
	name: string,
): Promise<string> {
	const { id } = await enqueueWhatsapp(
		// No Queue message: the test drives the consumer's work itself.
		{ WHATSAPP_OUT: { send: async () => undefined } as unknown as Queue },
		db,
		{
			workspaceId,
			numberId: number.id,
			kind: 'template',
			dedupeKey: `test:${crypto.randomUUID()}`,
			recipient: waId,
			template: { name, language: 'en', variables: [] },
		},
	);
	return id;
}
