import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversations } from '../src/db/schema';
import { postMessage } from '../src/domain/conversations/live';
import type { MessageCommand } from '../src/domain/conversations/message-command';
import { startConversation } from '../src/domain/conversations/start';
import { MAX_OPERATOR_TEXT, MAX_VISITOR_TEXT } from '../src/model/messages';
import {
	api,
	db,
	expectError,
	seedConversation,
	seedWorkspace,
	startVisitor,
	storedTexts,
	widgetApi,
} from './factories';
import { openSocket } from './sockets';

interface Recorded {
	type: string;
	actor: { kind: string; id: string | null };
	payload: { changed?: string[]; changes?: Record<string, { from: unknown; to: unknown }> };
}

/** Events the consumer recorded for a conversation, oldest first, with their actor. */
async function recorded(workspaceId: string, conversationId: string, type: string): Promise<Recorded[]> {
	const { results } = await env.DB.prepare(
		'SELECT type, actor, payload FROM events WHERE workspace_id = ? AND type = ? AND instr(payload, ?) > 0 ORDER BY occurred_at, id',
	)
		.bind(workspaceId, type, conversationId)
		.all<{ type: string; actor: string; payload: string }>();
	return results.map((r) => ({ type: r.type, actor: JSON.parse(r.actor), payload: JSON.parse(r.payload) }));
}

describe('conversation.updated', () => {
	it('says who changed what, from which value to which, and announces nothing when nothing moved', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const patch = (body: unknown) => api(token, 'PATCH', `/v3/conversations/${conversationId}`, body);
		expect((await patch({ status: 'closed', tags: ['vip', 'billing'] })).status).toBe(200);
		await expect.poll(async () => (await recorded(workspaceId, conversationId, 'conversation.updated')).length).toBe(1);
		const [closed] = await recorded(workspaceId, conversationId, 'conversation.updated');
		expect(closed?.actor).toEqual({ kind: 'operator', id: operatorId });
		expect(closed?.payload.changed).toEqual(['status', 'tags']);
		expect(closed?.payload.changes).toEqual({
			status: { from: 'open', to: 'closed' },
			tags: { from: [], to: ['billing', 'vip'] },
		});

		// The same values again: written (a close is still the team's latest word), but no change to announce.
		expect((await patch({ status: 'closed', tags: ['billing', 'vip'] })).status).toBe(200);
		expect((await patch({ assigneeId: operatorId })).status).toBe(200);
		const changes = async () =>
			(await recorded(workspaceId, conversationId, 'conversation.updated')).map((e) => e.payload.changes);
		await expect.poll(async () => (await changes()).length).toBe(2);
		expect((await changes())[1]).toEqual({ assigneeId: { from: null, to: operatorId } });
		// The list shows the tags too (its tag subquery once named the wrong table's id and showed none).
		const list = await api(token, 'GET', '/v3/conversations');
		const listed = ((await list.json()) as { data: Array<{ id: string; tags: string[] }> }).data;
		expect(listed.find((c) => c.id === conversationId)?.tags).toEqual(['billing', 'vip']);
	});
});

describe('the message command, checked by the room itself', () => {
	it('refuses what an HTTP route would refuse from a sender inside the system, naming the field, and stores nothing', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const room = env.CONVERSATION_ROOM.getByName(conversationId);
		const base: MessageCommand = {
			workspaceId,
			conversationId,
			authorKind: 'bot',
			authorId: null,
			text: 'Hello',
			attachments: [],
			clientMessageId: null,
		};
		const cases: Array<[MessageCommand, string[]]> = [
			[{ ...base, text: 'x'.repeat(MAX_OPERATOR_TEXT + 1) }, ['text']],
			[{ ...base, text: '   ' }, ['text']],
			[{ ...base, authorKind: 'contact', text: 'y'.repeat(MAX_VISITOR_TEXT + 1) }, ['text']],
			[{ ...base, authorKind: 'contact', interactive: { type: 'rating', max: 5 } }, ['interactive']],
			[{ ...base, authorKind: 'operator' }, ['authorId']],
			[
				{ ...base, attachments: [{ url: 'http://insecure.test/a.png', name: 'a', contentType: 'image/png', size: 1 }] },
				['attachments', '0', 'url'],
			],
		];
		for (const [command, field] of cases) {
			const outcome = await room.post(command, null);
			expect(outcome.status, field.join('.')).toBe('invalid');
			if (outcome.status === 'invalid') expect(outcome.problems.map((p) => p.path.map(String))).toContainEqual(field);
		}
		// Through the domain function a bot or a scenario calls: the same check, as a named field.
		await expect(postMessage(env, { ...base, text: 'z'.repeat(MAX_OPERATOR_TEXT + 1) })).rejects.toMatchObject({
			kind: 'invalid',
			problems: [expect.objectContaining({ path: ['text'] })],
		});
		expect(await storedTexts(token, conversationId)).toEqual([]);
		// A well-formed one goes through, trimmed.
		expect((await room.post({ ...base, text: '  Hello  ' }, null)).status).toBe('created');
		expect(await storedTexts(token, conversationId)).toEqual(['Hello']);
	});

	it('names a bad field by where the client put it: json. over HTTP, frame. on a socket', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const conversationId = await seedConversation(workspaceId);
		const viaHttp = await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { assigneeId: 'op_nobody' });
		expect((await expectError(viaHttp, 422)).message).toBe('json.assigneeId: no operator op_nobody in this workspace');
		const socket = await openSocket(`/v3/conversations/${conversationId}/live?after=0`, {
			Authorization: `Bearer ${token}`,
		});
		await socket.next('synced');
		socket.send({ type: 'message', text: '', clientMessageId: 'empty' });
		const refused = await socket.next('error');
		expect(refused).toMatchObject({ statusCode: 422 });
		expect(refused.message).toMatch(/^frame\.text: /);
	});
});

describe('startConversation (the widget, the API, and later bots and scenarios)', () => {
	it("posts the first message and the workspace's greeting as a bot message, once, however often it is retried", async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const start = {
			workspaceId,
			contact: { email: 'grace@example.com' },
			channel: 'api',
			startKey: `test:${crypto.randomUUID()}`,
			actor: { kind: 'operator' as const, id: operatorId },
			message: { authorKind: 'operator' as const, authorId: operatorId, text: 'Hi Grace', clientMessageId: 'start' },
			greeting: 'We usually answer within minutes.',
		};
		const first = await startConversation(env, db, start);
		const again = await startConversation(env, db, start);
		expect(first.created).toBe(true);
		expect(again).toMatchObject({ id: first.id, created: false, message: { id: first.message?.id } });
		const res = await api(token, 'GET', `/v3/conversations/${first.id}/messages`);
		const stored = ((await res.json()) as { data: Array<{ text: string; authorKind: string }> }).data;
		expect(stored.map((m) => [m.authorKind, m.text])).toEqual([
			['operator', 'Hi Grace'],
			['bot', 'We usually answer within minutes.'],
		]);
		// The retry started nothing more in the workspace.
		expect(await db.select().from(conversations).where(eq(conversations.workspaceId, workspaceId)).all()).toHaveLength(
			1,
		);
		// conversation.created carries the starter as its actor.
		await expect
			.poll(async () => (await recorded(workspaceId, first.id, 'conversation.created'))[0]?.actor)
			.toEqual({
				kind: 'operator',
				id: operatorId,
			});
	});

	it('the widget start goes the same way: its greeting is a bot message after the visitor’s', async () => {
		const { workspaceId, token } = await seedWorkspace();
		expect((await api(token, 'PUT', '/v3/widget/settings', { autoMessage: 'Thanks, one moment!' })).status).toBe(200);
		const visitor = await startVisitor(workspaceId);
		const body = { message: { text: 'Do you ship to Lisbon?', clientMessageId: 'first' } };
		const res = await widgetApi('POST', `/widget/${workspaceId}/conversations`, body, visitor.session, {
			'CF-Connecting-IP': visitor.ip,
		});
		expect(res.status).toBe(201);
		const { conversation } = (await res.json()) as { conversation: { id: string } };
		const stored = await api(token, 'GET', `/v3/conversations/${conversation.id}/messages`);
		const data = ((await stored.json()) as { data: Array<{ text: string; authorKind: string }> }).data;
		expect(data.map((m) => [m.authorKind, m.text])).toEqual([
			['contact', 'Do you ship to Lisbon?'],
			['bot', 'Thanks, one moment!'],
		]);
		// Started by the visitor's contact, created by this very start: the event names it.
		const read = await api(token, 'GET', `/v3/conversations/${conversation.id}`);
		const { contactId } = (await read.json()) as { contactId: string };
		await expect
			.poll(async () => (await recorded(workspaceId, conversation.id, 'conversation.created'))[0]?.actor)
			.toEqual({ kind: 'contact', id: contactId });
	});
});
