/**
 * What the continuation tests share: a workspace's e-mail settings, the room's clock moved on (never a
 * sleep), the deliveries a conversation's continuations enqueued, and the visitor's side (reading, a start
 * with pre-chat details).
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { CONTINUATION_TIMER } from '../durable-objects/room-mail';
import { api, seedWorkspace, startVisitor, startVisitorConversation, type Visitor, widgetApi } from './factories';

export const MINUTE = 60_000;

/** Writes the workspace's continuation settings (the row a settings screen would write). */
export async function setContinuation(workspaceId: string, settings: { enabled?: boolean; delaySeconds?: number }) {
	await env.DB.prepare(
		`INSERT INTO email_settings (workspace_id, continuation_enabled, continuation_delay_seconds, updated_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (workspace_id) DO UPDATE SET
		continuation_enabled = excluded.continuation_enabled, continuation_delay_seconds = excluded.continuation_delay_seconds`,
	)
		.bind(workspaceId, settings.enabled === false ? 0 : 1, settings.delaySeconds ?? 120, Date.now())
		.run();
}

/**
 * `ms` pass for the conversation's room, then its alarm runs: everything the room knows of time (its messages'
 * times, its timers, when it read the settings) moves back by `ms`, which is what waiting would do, without the wait.
 */
export async function elapse(conversationId: string, ms: number): Promise<void> {
	const room = env.CONVERSATION_ROOM.getByName(conversationId);
	await runInDurableObject(room, (_instance, state) => {
		state.storage.sql.exec('UPDATE log SET created_at = created_at - ?', ms);
		state.storage.sql.exec('UPDATE timers SET due_at = due_at - ?', ms);
		// When the room last read its workspace's settings (see `RoomMail`).
		const mail = state.storage.kv.get<{ learntAt: number }>('continuation');
		if (mail) state.storage.kv.put('continuation', { ...mail, learntAt: mail.learntAt - ms });
	});
	await runDurableObjectAlarm(room);
}

/** When the room's continuation timer is due (ms), or null when it has none. */
export async function continuationDueAt(conversationId: string): Promise<number | null> {
	const room = env.CONVERSATION_ROOM.getByName(conversationId);
	return runInDurableObject(room, (_instance, state) => {
		const [row] = state.storage.sql
			.exec<{ due_at: number }>('SELECT due_at FROM timers WHERE id = ?', CONTINUATION_TIMER)
			.toArray();
		return row?.due_at ?? null;
	});
}

export interface DeliveryRow {
	workspace_id: string;
	kind: string;
	recipient: string;
	first_seq: number;
	last_seq: number;
	dedupe_key: string;
	contact_id: string;
}

/** The mail deliveries enqueued for a conversation, oldest first. */
export async function deliveries(conversationId: string): Promise<DeliveryRow[]> {
	const { results } = await env.DB.prepare(
		`SELECT workspace_id, kind, recipient, first_seq, last_seq, dedupe_key, contact_id FROM mail_deliveries
		WHERE conversation_id = ? ORDER BY first_seq`,
	)
		.bind(conversationId)
		.all<DeliveryRow>();
	return results;
}

/** The visitor reads the conversation up to `seq` (the widget's read receipt). */
export async function visitorRead(visitor: Visitor, conversationId: string, seq: number): Promise<void> {
	const path = `/widget/${visitor.workspaceId}/conversations/${conversationId}/read`;
	const res = await widgetApi('POST', path, { seq }, visitor.session, { 'CF-Connecting-IP': visitor.ip });
	expect(res.status).toBe(200);
}

/** A visitor who starts a widget conversation (message 1), with pre-chat `details` when given. */
export async function widgetConversation(workspaceId: string, details?: Record<string, string>) {
	const visitor = await startVisitor(workspaceId);
	const conversationId = await startVisitorConversation(visitor, 'Is the Ridge 2 tent in stock?', {
		...(details ? { details } : {}),
	});
	return { visitor, conversationId };
}

/** The conversation's contact id, through the API. */
export async function contactOf(token: string, conversationId: string): Promise<string> {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { contactId: string }).contactId;
}

/**
 * `liveConversation` in a workspace with continuations off: for tests of the room's other timers, which
 * expect a team reply to leave no timer of its own behind (a continuation would wait for the visitor).
 */
export async function liveConversationWithoutMail() {
	const { workspaceId, token, operatorId } = await seedWorkspace();
	await setContinuation(workspaceId, { enabled: false });
	const visitor = await startVisitor(workspaceId);
	const conversationId = await startVisitorConversation(visitor, 'Hi, I need help');
	return { workspaceId, token, operatorId, visitor, conversationId };
}
