import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { eventOutbox } from '../src/db/schema';
import { release } from '../src/events/commit';
import { queueBatches } from '../src/events/deliver';
import { SWEEP_AFTER_MS, sweepOutbox } from '../src/events/outbox';
import { SYSTEM } from '../src/model/actor';
import { domainEventSchema, newEvent } from '../src/model/events';
import { consumeEvents, processEvent } from '../src/queue/events-consumer';
import { api, db, seedWorkspace, startVisitor } from './factories';

async function recordedTypes(workspaceId: string, subjectId: string) {
	const { results } = await env.DB.prepare(
		'SELECT type FROM events WHERE workspace_id = ? AND instr(payload, ?) > 0 ORDER BY occurred_at, id',
	)
		.bind(workspaceId, subjectId)
		.all<{ type: string }>();
	return results.map((r) => r.type);
}

describe('the events consumer', () => {
	it('records an event once however many times it is delivered', async () => {
		const { workspaceId } = await seedWorkspace();
		const event = newEvent('conversation.read', workspaceId, SYSTEM, {
			conversationId: 'conv_x',
			reader: 'operator',
			operatorId: null,
			seq: 3,
		});
		await processEvent(env, event);
		await processEvent(env, event);
		const rows = await env.DB.prepare('SELECT id FROM events WHERE id = ?').bind(event.id).all();
		expect(rows.results).toHaveLength(1);
	});

	it('records a whole batch, each event once, and acks what it cannot parse', async () => {
		const { workspaceId } = await seedWorkspace();
		const read = (seq: number) =>
			newEvent('conversation.read', workspaceId, SYSTEM, {
				conversationId: 'conv_batch',
				reader: 'contact',
				operatorId: null,
				seq,
			});
		const list = Array.from({ length: 30 }, (_, i) => read(i + 1));
		// A redelivered event and a malformed body ride in the same batch.
		const bodies = [...list, list[0], { type: 'nonsense' }];
		const batch = createMessageBatch(
			'parley-events',
			bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
		);
		const ctx = createExecutionContext();
		await consumeEvents(batch, env);
		await waitOnExecutionContext(ctx);
		const result = await getQueueResult(batch, ctx);
		expect(result.explicitAcks).toHaveLength(bodies.length);
		expect(result.retryMessages).toEqual([]);
		const rows = await env.DB.prepare(
			"SELECT COUNT(*) AS n FROM events WHERE workspace_id = ? AND instr(payload, 'conv_batch') > 0",
		)
			.bind(workspaceId)
			.first<{ n: number }>();
		expect(rows?.n).toBe(30);
	});

	it('every event the catalogue builds parses with the catalogue schema', () => {
		const event = newEvent('contact.updated', 'ws_1', SYSTEM, {
			contact: { id: 'ctc_1', name: null, email: null, phone: null, verified: false },
			changed: ['name'],
			changes: { name: { from: null, to: 'Ada' } },
		});
		expect(domainEventSchema.safeParse(event).success).toBe(true);
		expect(domainEventSchema.safeParse({ ...event, type: 'contact.exploded' }).success).toBe(false);
	});
});

describe('queueBatches', () => {
	it('keeps every Queue batch under 100 messages and 200 KB, in order', () => {
		const long = 'y'.repeat(9_000);
		const events = Array.from({ length: 130 }, (_, i) =>
			newEvent('conversation.read', 'ws_1', SYSTEM, {
				conversationId: `${i}-${i % 3 === 0 ? long : 'short'}`,
				reader: 'contact',
				operatorId: null,
				seq: i,
			}),
		);
		const batches = queueBatches(events);
		expect(batches.flat()).toEqual(events);
		for (const batch of batches) {
			expect(batch.length).toBeLessThanOrEqual(100);
			expect(new TextEncoder().encode(JSON.stringify(batch)).length).toBeLessThanOrEqual(200 * 1024 + 200);
		}
		expect(batches.length).toBeGreaterThan(2);
	});
});

describe('events emitted by changes', () => {
	it('records contact.created, conversation.created, message.created and conversation.updated', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'events@example.com' },
			message: { text: 'first' },
		});
		const { id, contactId } = (await res.json()) as { id: string; contactId: string };
		await api(token, 'PATCH', `/v3/conversations/${id}`, { status: 'closed' });
		await expect
			.poll(() => recordedTypes(workspaceId, id))
			.toEqual(['conversation.created', 'message.created', 'conversation.updated']);
		await expect.poll(() => recordedTypes(workspaceId, contactId)).toContain('contact.created');
		const outbox = await db.select().from(eventOutbox).all();
		expect(outbox.filter((row) => row.workspaceId === workspaceId)).toEqual([]);
	});

	it('records contact.updated when a visitor identifies', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const res = await api(
			null,
			'POST',
			`/widget/${workspaceId}/identify`,
			{ name: 'Nia' },
			{ 'Parley-Session': visitor.session },
		);
		const { contact } = (await res.json()) as { contact: { id: string } };
		// Both carry the same instant, so their recorded order is not meaningful: compare as sets.
		await expect
			.poll(async () => (await recordedTypes(workspaceId, contact.id)).sort())
			.toEqual(['contact.created', 'contact.updated']);
	});
});

describe('the D1 outbox', () => {
	it('keeps the event of a committed change when the Queue refuses it, and the sweep sends it later', async () => {
		const { workspaceId } = await seedWorkspace();
		const longAgo = Date.now() - SWEEP_AFTER_MS - 1000;
		const event = newEvent(
			'conversation.read',
			workspaceId,
			SYSTEM,
			{ conversationId: 'conv_swept', reader: 'contact', operatorId: null, seq: 1 },
			longAgo,
		);
		await db.insert(eventOutbox).values({ id: event.id, workspaceId, event, createdAt: longAgo });
		const refusing = { ...env, EVENTS: { send: refuse, sendBatch: refuse } } as unknown as Env;
		await release(refusing, [event]);
		expect(await db.select().from(eventOutbox).all()).toEqual(
			expect.arrayContaining([expect.objectContaining({ id: event.id })]),
		);

		expect(await sweepOutbox(env, db)).toBeGreaterThanOrEqual(1);
		await expect.poll(() => recordedTypes(workspaceId, 'conv_swept')).toEqual(['conversation.read']);
		const left = await db.select().from(eventOutbox).all();
		expect(left.some((row) => row.id === event.id)).toBe(false);
	});

	it('leaves recent rows to the request that wrote them', async () => {
		const { workspaceId } = await seedWorkspace();
		const event = newEvent('conversation.read', workspaceId, SYSTEM, {
			conversationId: 'conv_recent',
			reader: 'contact',
			operatorId: null,
			seq: 1,
		});
		await db.insert(eventOutbox).values({ id: event.id, workspaceId, event, createdAt: Date.now() });
		await sweepOutbox(env, db);
		const left = await db.select().from(eventOutbox).all();
		expect(left.some((row) => row.id === event.id)).toBe(true);
	});
});

async function refuse(): Promise<never> {
	throw new Error('Queue send failed (injected)');
}
