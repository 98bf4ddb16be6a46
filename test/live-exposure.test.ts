import { describe, expect, it } from 'vitest';
import { api, expectError, liveConversation, seedWorkspace, widgetApi } from './factories';
import { openSocket, visitorSocket } from './sockets';

describe('the socket subprotocol credential', () => {
	it('is not a credential on a plain request: a GET with only bearer.<token> is 401', async () => {
		const { token } = await seedWorkspace();
		const protocols = { 'Sec-WebSocket-Protocol': `parley.v1, bearer.${token}` };
		await expectError(await api(null, 'GET', '/v3/conversations', undefined, protocols), 401);
		// The same header on an upgrade still opens the feed.
		const upgrade = await api(null, 'GET', '/v3/live', undefined, { ...protocols, Upgrade: 'websocket' });
		expect(upgrade.status).toBe(101);
	});

	it('is not a visitor credential on a plain request either: session.<token> without an upgrade is 401', async () => {
		const { workspaceId, visitor, conversationId } = await liveConversation();
		const res = await widgetApi(
			'GET',
			`/widget/${workspaceId}/conversations/${conversationId}/live`,
			undefined,
			undefined,
			{
				'Sec-WebSocket-Protocol': `parley.v1, session.${visitor.session}`,
			},
		);
		await expectError(res, 401);
	});
});

describe('what a visitor sees of the team', () => {
	it('shows no operator id in live frames, the backlog or the history, while the team sees it', async () => {
		const { workspaceId, token, operatorId, visitor, conversationId } = await liveConversation();
		const contact = await visitorSocket(visitor, conversationId);
		const operator = await openSocket(`/v3/conversations/${conversationId}/live`, { Authorization: `Bearer ${token}` });
		await operator.next('synced');
		operator.send({ type: 'typing', typing: true });
		operator.send({ type: 'message', text: 'From the team', clientMessageId: 'team-1' });
		const typing = await contact.next('typing');
		expect(typing).toMatchObject({ author: 'operator', operatorId: null });
		const live = await contact.next('message', (f) => f.message.text === 'From the team');
		expect(live.message).toMatchObject({ authorKind: 'operator', authorId: null });
		// The team still sees who wrote it.
		expect((await operator.next('ack')).message.authorId).toBe(operatorId);

		// The history reads D1, which gets a socket's message with the flush that follows its ack.
		const history = async () => {
			const res = await widgetApi(
				'GET',
				`/widget/${workspaceId}/conversations/${conversationId}/messages`,
				undefined,
				visitor.session,
			);
			return ((await res.json()) as { data: Array<{ authorKind: string; authorId: string | null }> }).data;
		};
		await expect.poll(async () => (await history()).length).toBe(2);
		const data = await history();
		expect(data.map((m) => [m.authorKind, m.authorId])).toEqual([
			['contact', null],
			['operator', null],
		]);
		const backlog = await visitorSocket(visitor, conversationId);
		const seen = backlog.frames.flatMap((f) => (f.type === 'message' ? [f.message.authorId] : []));
		expect(seen).toEqual([null, null]);
		expect(JSON.stringify([contact.frames, backlog.frames, data])).not.toContain(operatorId);
	});
});
