import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectError, liveConversation, seedConversation, seedOperator, seedWorkspace } from './factories';
import { openSocket } from './sockets';

interface Member {
	id: string;
	name: string;
	permissions: string[];
	groups: { id: string; name: string }[];
	capacity: number | null;
	disabled: boolean;
}

interface Group {
	id: string;
	name: string;
	memberIds: string[];
}

async function newGroup(token: string, name: string, memberIds: string[] = []): Promise<Group> {
	const res = await api(token, 'POST', '/v3/team/groups', { name, memberIds });
	expect(res.status).toBe(201);
	return (await res.json()) as Group;
}

/** The events of `prefix` recorded in the workspace, oldest first, as `type` and payload. */
async function eventsOf(workspaceId: string, prefix: string) {
	const { results } = await env.DB.prepare(
		'SELECT type, payload FROM events WHERE workspace_id = ? AND type LIKE ? ORDER BY occurred_at, id',
	)
		.bind(workspaceId, `${prefix}%`)
		.all<{ type: string; payload: string }>();
	return results.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

async function conversationGroup(token: string, id: string) {
	return ((await (await api(token, 'GET', `/v3/conversations/${id}`)).json()) as { groupId: string | null }).groupId;
}

describe('/v3/team/members', () => {
	it('lists, reads and changes a member, announcing each field from and to', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const sales = await newGroup(token, 'Sales');
		const created = await api(token, 'POST', '/v3/team/members', {
			email: 'bia@acme.test',
			name: 'Bia',
			permissions: ['conversations:read'],
			groups: [sales.id],
			capacity: 4,
		});
		expect(created.status).toBe(201);
		const bia = (await created.json()) as Member;
		expect(bia).toMatchObject({ groups: [{ id: sales.id, name: 'Sales' }], capacity: 4, disabled: false });
		const support = await newGroup(token, 'Support');
		const res = await api(token, 'PATCH', `/v3/team/members/${bia.id}`, {
			name: 'Bia Souza',
			groups: [support.id],
			capacity: null,
			permissions: ['conversations:read', 'messages:send'],
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({
			name: 'Bia Souza',
			groups: [{ id: support.id, name: 'Support' }],
			capacity: null,
			permissions: ['conversations:read', 'messages:send'],
		});
		const page = (await (await api(token, 'GET', `/v3/team/members?groupId=${support.id}`)).json()) as {
			data: Member[];
		};
		expect(page.data.map((m) => m.name)).toEqual(['Bia Souza']);
		expect(((await (await api(token, 'GET', '/v3/team/members')).json()) as { data: Member[] }).data).toHaveLength(2);
		await expect
			.poll(async () => (await eventsOf(workspaceId, 'member.')).map((e) => [e.type, e.payload.changes]))
			.toEqual([
				['member.created', undefined],
				[
					'member.updated',
					{
						name: { from: 'Bia', to: 'Bia Souza' },
						permissions: { from: ['conversations:read'], to: ['conversations:read', 'messages:send'] },
						groups: { from: [sales.id], to: [support.id] },
						capacity: { from: 4, to: null },
					},
				],
			]);
	});

	it('refuses an unknown group (422 naming it), disabling itself or dropping its own admin (409)', async () => {
		const { operatorId, token } = await seedWorkspace();
		const { message } = await expectError(
			await api(token, 'PATCH', `/v3/team/members/${operatorId}`, { groups: ['grp_nope'] }),
			422,
		);
		expect(message).toContain('json.groups.0');
		await expectError(await api(token, 'PATCH', `/v3/team/members/${operatorId}`, { disabled: true }), 409);
		await expectError(
			await api(token, 'PATCH', `/v3/team/members/${operatorId}`, { permissions: ['conversations:read'] }),
			409,
		);
		await expectError(await api(token, 'DELETE', `/v3/team/members/${operatorId}`), 409);
		expect((await api(token, 'GET', '/v3/me')).status).toBe(200);
	});

	it("stops a disabled member's token and sockets at once, and lets it back when enabled", async () => {
		const { token: admin, conversationId, workspaceId } = await liveConversation();
		const member = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		expect((await api(member.token, 'GET', '/v3/me')).status).toBe(200);
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${member.token}` });
		const room = await openSocket(`/v3/conversations/${conversationId}/live`, {
			Authorization: `Bearer ${member.token}`,
		});
		const res = await api(admin, 'PATCH', `/v3/team/members/${member.operatorId}`, { disabled: true });
		expect(await res.json()).toMatchObject({ disabled: true });
		// The very next request: its gate was suspended before the change committed.
		await expectError(await api(member.token, 'GET', '/v3/me'), 401);
		expect(await feed.closed).toBe(4001);
		expect(await room.closed).toBe(4001);
		const { message } = await expectError(
			await api(admin, 'PATCH', `/v3/conversations/${conversationId}`, { assigneeId: member.operatorId }),
			422,
		);
		expect(message).toContain('disabled');
		await api(admin, 'PATCH', `/v3/team/members/${member.operatorId}`, { disabled: false });
		expect((await api(member.token, 'GET', '/v3/me')).status).toBe(200);
	});

	it('applies a permission taken away from the next request, and closes the sockets opened with it', async () => {
		const { workspaceId, token: admin } = await seedWorkspace();
		const member = await seedOperator(workspaceId, ['conversations:read']);
		expect((await api(member.token, 'GET', '/v3/conversations')).status).toBe(200);
		const feed = await openSocket('/v3/live', { Authorization: `Bearer ${member.token}` });
		await api(admin, 'PATCH', `/v3/team/members/${member.operatorId}`, { permissions: [] });
		await expectError(await api(member.token, 'GET', '/v3/conversations'), 403);
		expect(await feed.closed).toBe(4001);
	});

	it('deletes a member: its token fails and its conversations are unassigned, each announced', async () => {
		const { workspaceId, token: admin } = await seedWorkspace();
		const member = await seedOperator(workspaceId, ['conversations:read']);
		const conversations = [
			await seedConversation(workspaceId, { assigneeId: member.operatorId }),
			await seedConversation(workspaceId, { assigneeId: member.operatorId, status: 'closed' }),
		];
		expect((await api(member.token, 'GET', '/v3/me')).status).toBe(200);
		expect((await api(admin, 'DELETE', `/v3/team/members/${member.operatorId}`)).status).toBe(204);
		await expectError(await api(member.token, 'GET', '/v3/me'), 401);
		await expectError(await api(admin, 'GET', `/v3/team/members/${member.operatorId}`), 404);
		for (const id of conversations) {
			const seen = (await (await api(admin, 'GET', `/v3/conversations/${id}`)).json()) as { assigneeId: string | null };
			expect(seen.assigneeId).toBeNull();
		}
		await expect
			.poll(async () =>
				(await eventsOf(workspaceId, 'conversation.updated')).map((e) => e.payload.conversation.id).sort(),
			)
			.toEqual([...conversations].sort());
		await expect.poll(async () => (await eventsOf(workspaceId, 'member.deleted')).length).toBe(1);
	});

	it('needs admin, and answers 404 for a member of another workspace', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const reader = await seedOperator(workspaceId, ['conversations:read', 'contacts:write']);
		await expectError(await api(reader.token, 'GET', '/v3/team/members'), 403);
		await expectError(await api(reader.token, 'PATCH', `/v3/team/members/${reader.operatorId}`, { name: 'Me' }), 403);
		const other = await seedWorkspace();
		for (const [method, body] of [['GET'], ['PATCH', { name: 'Stolen' }], ['DELETE']] as const) {
			await expectError(await api(other.token, method, `/v3/team/members/${reader.operatorId}`, body), 404);
		}
		const page = (await (await api(other.token, 'GET', '/v3/team/members')).json()) as { data: Member[] };
		expect(page.data.map((m) => m.id)).not.toContain(reader.operatorId);
		expect((await api(token, 'GET', `/v3/team/members/${reader.operatorId}`)).status).toBe(200);
	});
});

describe('/v3/team/groups', () => {
	it('creates, renames, repopulates and deletes a group; its conversations lose it', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const member = await seedOperator(workspaceId, ['conversations:read']);
		const sales = await newGroup(token, 'Sales', [operatorId]);
		expect(sales.memberIds).toEqual([operatorId]);
		await expectError(await api(token, 'POST', '/v3/team/groups', { name: 'Sales' }), 409);
		const { message } = await expectError(
			await api(token, 'POST', '/v3/team/groups', { name: 'X', memberIds: ['op_nope'] }),
			422,
		);
		expect(message).toContain('json.memberIds.0');
		const renamed = await api(token, 'PATCH', `/v3/team/groups/${sales.id}`, {
			name: 'Inside sales',
			memberIds: [member.operatorId],
		});
		expect(await renamed.json()).toMatchObject({ name: 'Inside sales', memberIds: [member.operatorId] });
		const member2 = (await (await api(token, 'GET', `/v3/team/members/${member.operatorId}`)).json()) as Member;
		expect(member2.groups).toEqual([{ id: sales.id, name: 'Inside sales' }]);
		// Read with conversations:read.
		expect((await api(member.token, 'GET', `/v3/team/groups/${sales.id}`)).status).toBe(200);
		expect((await api(member.token, 'GET', '/v3/team/groups')).status).toBe(200);
		await expectError(await api(member.token, 'POST', '/v3/team/groups', { name: 'Mine' }), 403);

		const routed = await seedConversation(workspaceId);
		const other = await seedConversation(workspaceId);
		expect((await api(token, 'PATCH', `/v3/conversations/${routed}`, { groupId: sales.id })).status).toBe(200);
		const inGroup = (await (await api(token, 'GET', `/v3/conversations?groupId=${sales.id}`)).json()) as {
			data: { id: string }[];
		};
		expect(inGroup.data.map((c) => c.id)).toEqual([routed]);
		const none = (await (await api(token, 'GET', '/v3/conversations?groupId=none')).json()) as {
			data: { id: string }[];
		};
		expect(none.data.map((c) => c.id)).toEqual([other]);
		expect((await api(token, 'DELETE', `/v3/team/groups/${sales.id}`)).status).toBe(204);
		expect(await conversationGroup(token, routed)).toBeNull();
		expect(
			((await (await api(token, 'GET', `/v3/team/members/${member.operatorId}`)).json()) as Member).groups,
		).toEqual([]);
		await expect
			.poll(async () => (await eventsOf(workspaceId, 'group.')).map((e) => e.type))
			.toEqual(['group.created', 'group.updated', 'group.deleted']);
	});

	it('refuses a conversation routed to a group that is not the workspace’s (422), changing nothing', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const other = await seedWorkspace();
		const foreign = await newGroup(other.token, 'Theirs');
		const id = await seedConversation(workspaceId);
		for (const groupId of ['grp_nope', foreign.id]) {
			const { message } = await expectError(await api(token, 'PATCH', `/v3/conversations/${id}`, { groupId }), 422);
			expect(message).toContain('json.groupId');
		}
		const started = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'ana@example.com' },
			groupId: 'grp_nope',
		});
		await expectError(started, 422);
		expect(await conversationGroup(token, id)).toBeNull();
		await expectError(await api(token, 'GET', `/v3/team/groups/${foreign.id}`), 404);
	});
});
