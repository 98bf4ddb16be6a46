/** Reading what a WhatsApp webhook posted: the sender's contact, its conversations and their messages. */
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { contacts, conversations, whatsappInbound } from '../src/db/schema';
import { api, db } from './factories';

export interface PostedMessage {
	id: string;
	seq: number;
	authorKind: string;
	text: string;
	attachments: { url: string; name: string; contentType: string; size: number }[];
}

/** The contact holding WhatsApp id `waId` in the workspace, if any. */
export async function contactOf(workspaceId: string, waId: string) {
	return db
		.select()
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.whatsappId, waId)))
		.get();
}

/** The WhatsApp conversations of the contact, oldest first. */
export async function conversationsOf(workspaceId: string, contactId: string) {
	return db
		.select()
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.contactId, contactId)))
		.orderBy(conversations.createdAt);
}

/** A conversation's messages through the API, in order. */
export async function messagesOf(token: string, conversationId: string): Promise<PostedMessage[]> {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages?limit=100`);
	expect(res.status).toBe(200);
	const body = (await res.json()) as { data: PostedMessage[] };
	return [...body.data].sort((a, b) => a.seq - b.seq);
}

/** The one conversation of the sender `waId` and its contact messages, once the webhook posted them. */
export async function contactMessages(token: string, workspaceId: string, waId: string) {
	const contact = await contactOf(workspaceId, waId);
	if (!contact) throw new Error(`no contact with WhatsApp id ${waId}`);
	const [conversation, ...more] = await conversationsOf(workspaceId, contact.id);
	if (!conversation || more.length > 0) throw new Error(`expected one conversation, got ${more.length + 1}`);
	const messages = (await messagesOf(token, conversation.id)).filter((m) => m.authorKind === 'contact');
	return { contact, conversation, messages };
}

/** The inbound row of a wamid. */
export async function inboundRow(wamid: string) {
	return db.select().from(whatsappInbound).where(eq(whatsappInbound.wamid, wamid)).get();
}
