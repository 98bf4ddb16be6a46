import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectError, seedConversation, seedOperator, seedWorkspace } from './factories';
import { openSocket } from './sockets';

interface Presence {
	operatorId: string;
	status: string;
}

async function presence(token: string): Promise<Record<string, string>> {
	const res = await api(token, 'GET', '/v3/team/presence');
	expect(res.status).toBe(200);
	const { data } = (await res.json()) as { data: Presence[] };
	return Object.fromEntries(data.map((p) => [p.operatorId, p.status]));
}

/** The presence events recorded for an operator, as `from>to (reason)`, oldest first. */
async function statusEvents(workspaceId: string, operatorId: string) {
	const { results } = await env.DB.prepare(
		"SELECT payload FROM events WHERE workspace_id = ? AND type = 'member.status_changed' AND json_extract(payload, '$.memberId') = ? ORDER BY occurred_at, id",
	)
		.bind(workspaceId, operatorId)
		.all<{ payload: string }>();
	return results.map((r) => {
		const p = JSON.parse(r.payload) as { reason: string; changes: { status: { from: string; to: string } } };
		return `${p.changes.status.from}>${p.changes.status.to} (${p.reason})`;
	});
}

const feedOf = (token: string) => openSocket('/v3/live', { Authorization: `Bearer ${token}` });

describe('presence', () => {
	it('lets any token set its own status, which the team sees and the feed announces', async () => {
		const { workspaceId, token: admin } = await seedWorkspace();
		const member = await seedOperator(workspaceId, []);
		const feed = await feedOf(admin);
		const res = await api(member.token, 'PUT', '/v3/me/status', { status: 'busy' });
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({ operatorId: member.operatorId, status: 'busy' });
		expect((await presence(admin))[member.operatorId]).toBe('busy');
		const event = await feed.next(
			'event',
			(f) => f.event.type === 'member.status_changed' && f.event.payload.memberId === member.operatorId,
		);
		expect(event.event.payload).toMatchObject({ reason: 'set', changes: { status: { from: 'offline', to: 'busy' } } });
		const { message } = await expectError(await api(member.token, 'PUT', '/v3/me/status', { status: 'gone' }), 422);
		expect(message).toContain('json.status');
		await expect.poll(() => statusEvents(workspaceId, member.operatorId)).toEqual(['offline>busy (set)']);
		// Set with no console open: it lasts the grace period (1 s in the tests), not forever.
		await expect
			.poll(async () => (await presence(admin))[member.operatorId], { timeout: 10_000, interval: 400 })
			.toBe('offline');
		// Reading the team's presence needs conversations:read.
		await expectError(await api(member.token, 'GET', '/v3/team/presence'), 403);
	});

	it('sends every status first on a new feed, and a feed connecting changes nothing already in effect', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		await api(token, 'PUT', '/v3/me/status', { status: 'away' });
		const feed = await feedOf(token);
		const first = await feed.next('presence');
		expect(first.presence).toEqual([expect.objectContaining({ operatorId, status: 'away' })]);
		expect(feed.frames[0]?.type).toBe('presence');
		// Already away: connecting changes nothing and announces nothing.
		await expect.poll(() => statusEvents(workspaceId, operatorId)).toEqual(['offline>away (set)']);
		await new Promise((resolve) => setTimeout(resolve, 1_500));
		expect(await statusEvents(workspaceId, operatorId)).toEqual(['offline>away (set)']);
	});

	it('turns an operator offline after the grace period once its last feed socket drops, not before', async () => {
		const { workspaceId, operatorId, token } = await seedWorkspace();
		const first = await feedOf(token);
		const second = await feedOf(token);
		expect((await presence(token))[operatorId]).toBe('online');
		first.close();
		await first.closed;
		// One feed left: still online however long it waits.
		await new Promise((resolve) => setTimeout(resolve, 1_500));
		expect((await presence(token))[operatorId]).toBe('online');
		second.close();
		await second.closed;
		// Reconnecting within the grace period calls the offline off...
		const third = await feedOf(token);
		await new Promise((resolve) => setTimeout(resolve, 1_500));
		expect((await presence(token))[operatorId]).toBe('online');
		third.close();
		await third.closed;
		// ...and without one, the grace period (1 s in the tests) ends it.
		expect((await presence(token))[operatorId]).toBe('online');
		await expect
			.poll(async () => (await presence(token))[operatorId], { timeout: 10_000, interval: 400 })
			.toBe('offline');
		await expect
			.poll(() => statusEvents(workspaceId, operatorId))
			.toEqual(['offline>online (connected)', 'online>offline (disconnected)']);
		// The console comes back: so does the status the operator chose.
		await api(token, 'PUT', '/v3/me/status', { status: 'busy' });
		const back = await feedOf(token);
		back.close();
		await back.closed;
		await expect
			.poll(async () => (await presence(token))[operatorId], { timeout: 10_000, interval: 400 })
			.toBe('offline');
		await feedOf(token);
		expect((await presence(token))[operatorId]).toBe('busy');
		await expect
			.poll(async () => (await statusEvents(workspaceId, operatorId)).slice(2))
			.toEqual(['offline>busy (set)', 'busy>offline (disconnected)', 'offline>busy (connected)']);
	});

	it('turns a disabled operator offline at once, and counts only enabled, online operators under capacity as available', async () => {
		const { workspaceId, token: admin } = await seedWorkspace();
		const sales = (await (await api(admin, 'POST', '/v3/team/groups', { name: 'Sales' })).json()) as { id: string };
		const ana = await seedOperator(workspaceId, ['conversations:read']);
		const bo = await seedOperator(workspaceId, ['conversations:read']);
		const cy = await seedOperator(workspaceId, ['conversations:read']);
		await api(admin, 'PATCH', `/v3/team/members/${ana.operatorId}`, { groups: [sales.id], capacity: 2 });
		await api(admin, 'PATCH', `/v3/team/members/${bo.operatorId}`, { groups: [sales.id], capacity: 1 });
		// Available means a console open: each has its feed.
		for (const member of [ana, bo, cy]) await feedOf(member.token);
		await api(cy.token, 'PUT', '/v3/me/status', { status: 'away' });
		await seedConversation(workspaceId, { assigneeId: ana.operatorId });
		await seedConversation(workspaceId, { assigneeId: ana.operatorId, status: 'closed' });
		const available = async (query = '') =>
			(
				(await (await api(admin, 'GET', `/v3/team/available${query}`)).json()) as { data: { operatorId: string }[] }
			).data.map((a) => a.operatorId);
		expect(await available(`?groupId=${sales.id}`)).toEqual([bo.operatorId, ana.operatorId]);
		await seedConversation(workspaceId, { assigneeId: bo.operatorId, status: 'pending' });
		// Bo is at capacity (one pending), Ana has one open of two; Cy is away.
		expect(await available()).toEqual([ana.operatorId]);
		await api(admin, 'PATCH', `/v3/team/members/${ana.operatorId}`, { disabled: true });
		expect((await presence(admin))[ana.operatorId]).toBe('offline');
		expect(await available()).toEqual([]);
		await expect
			.poll(() => statusEvents(workspaceId, ana.operatorId))
			.toEqual(['offline>online (connected)', 'online>offline (removed)']);
	});
});
