import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from '../src/db/schema';
import {
	attemptDelivery,
	type DeliveryContext,
	type DeliveryMessage,
	fanOut,
	RETRY_SCHEDULE,
} from '../src/domain/webhooks/deliveries';
import { SYSTEM } from '../src/model/actor';
import { newEvent } from '../src/model/events';
import { api, db, expectError, seedWorkspace } from './factories';

/** The deliveries' runner with a Queue that keeps what is sent, a clock and a receiver the test controls. */
function courier(answer: (request: Request) => Response | Promise<Response>) {
	const sent: Array<{ body: DeliveryMessage; delaySeconds?: number }> = [];
	const received: Array<{ body: string; headers: Record<string, string> }> = [];
	let now = Date.now();
	const dc: DeliveryContext = {
		env,
		db,
		queue: {
			send: async (body: DeliveryMessage, options?: { delaySeconds?: number }) => {
				sent.push({ body, ...(options?.delaySeconds === undefined ? {} : { delaySeconds: options.delaySeconds }) });
			},
			sendBatch: async (messages: Array<{ body: DeliveryMessage }>) => {
				for (const m of messages) sent.push({ body: m.body });
			},
		} as unknown as Queue<DeliveryMessage>,
		now: () => now,
		transport: (async (input: RequestInfo | URL, init?: RequestInit) => {
			const request = new Request(input, init);
			received.push({ body: await request.clone().text(), headers: Object.fromEntries(request.headers) });
			return answer(request);
		}) as typeof fetch,
	};
	return {
		dc,
		sent,
		received,
		at: () => now,
		advance: (ms: number) => {
			now += ms;
		},
	};
}

async function endpoint(token: string, events: string[] = ['*']) {
	const res = await api(token, 'POST', '/v3/webhooks', { url: 'https://hooks.acme.example/parley', events });
	expect(res.status).toBe(201);
	return (await res.json()) as { id: string; secret: string };
}

/** A tag event of the workspace, recorded through the domain (no Queue): the delivery's subject. */
function tagEvent(workspaceId: string, name: string, now = Date.now()) {
	return newEvent('tag.created', workspaceId, SYSTEM, { tag: { id: `tag_${name}`, name } }, now);
}

async function deliveryOf(endpointId: string, eventId: string) {
	const row = await db
		.select()
		.from(webhookDeliveries)
		.where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.eventId, eventId)))
		.get();
	if (!row) throw new Error('no delivery');
	return row;
}

/** `v1,` + base64 of HMAC-SHA256(the secret's bytes, `id.timestamp.body`): the Standard Webhooks signature. */
async function byFormula(secret: string, received: { body: string; headers: Record<string, string> }) {
	const raw = Uint8Array.from(atob(secret.slice('whsec_'.length)), (ch) => ch.charCodeAt(0));
	const key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
	const signed = `${received.headers['webhook-id']}.${received.headers['webhook-timestamp']}.${received.body}`;
	const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(signed)));
	return `v1,${btoa(String.fromCharCode(...mac))}`;
}

function message(row: { id: string; workspaceId: string; nextAttemptAt: number | null }): DeliveryMessage {
	return { deliveryId: row.id, workspaceId: row.workspaceId, due: row.nextAttemptAt ?? 0 };
}

/** Marks a delivery failed, as if all its retries had failed. */
async function failAll(id: string) {
	await db.update(webhookDeliveries).set({ status: 'failed', nextAttemptAt: null }).where(eq(webhookDeliveries.id, id));
}

/** A due try, as a re-send leaves it: pending, due `at`. */
async function dueNow(id: string, at: number) {
	const [row] = await db
		.update(webhookDeliveries)
		.set({ status: 'pending', nextAttemptAt: at })
		.where(eq(webhookDeliveries.id, id))
		.returning();
	if (!row) throw new Error('no delivery');
	return row;
}

/** Points the endpoint at an address this deployment refuses to call: a try there fails at once. */
async function refuseAddress(id: string) {
	await db.update(webhookEndpoints).set({ url: 'https://localhost/parley' }).where(eq(webhookEndpoints.id, id));
}

/** Points the endpoint back at a public address (only the tests' couriers reach it). */
async function reachableAddress(id: string) {
	await db
		.update(webhookEndpoints)
		.set({ url: 'https://hooks.acme.example/parley' })
		.where(eq(webhookEndpoints.id, id));
}

/** The tries recorded for a delivery, in order. */
function triesOf(deliveryId: string) {
	return db
		.select()
		.from(webhookAttempts)
		.where(eq(webhookAttempts.deliveryId, deliveryId))
		.orderBy(webhookAttempts.attempt);
}

describe('outbound webhooks', () => {
	it('records one delivery per endpoint that wants the event, and the real consumer makes its first try', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const all = await endpoint(token);
		const contactsOnly = await endpoint(token, ['contact.created']);
		const tags = await endpoint(token, ['tag.created']);
		// An address this deployment refuses to call (as if its settings changed since): the try fails at once,
		// with no network in the test.
		await db
			.update(webhookEndpoints)
			.set({ url: 'https://localhost/parley' })
			.where(eq(webhookEndpoints.workspaceId, workspaceId));
		expect((await api(token, 'POST', '/v3/tags', { name: 'vip' })).status).toBe(201);
		await expect
			.poll(async () =>
				(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.workspaceId, workspaceId)))
					.map((d) => d.endpointId)
					.sort(),
			)
			.toEqual([all.id, tags.id].sort());
		// The endpoint that wants only contact.created got nothing.
		expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, contactsOnly.id))).toEqual(
			[],
		);
		// The consumer's try fails, is recorded with its reason, and the next is scheduled.
		await expect
			.poll(async () => {
				const rows = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, tags.id));
				return rows[0]?.attempts ?? 0;
			})
			.toBeGreaterThan(0);
		const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, tags.id));
		const detail = (await (await api(token, 'GET', `/v3/webhooks/${tags.id}/deliveries/${row?.id}`)).json()) as {
			status: string;
			attemptLog: Array<{ error: string | null }>;
		};
		expect(detail.status).toBe('pending');
		expect(detail.attemptLog[0]?.error).toContain('localhost');
	});

	it('signs each delivery so that svix verifies it, with both secrets while a rotation overlaps', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const hook = await endpoint(token, ['tag.created']);
		const c = courier(() => new Response('ok'));
		const event = tagEvent(workspaceId, 'first', c.at());
		await fanOut({ ...env, WEBHOOK_DELIVERIES: c.dc.queue } as Env, db, event, c.at());
		await attemptDelivery(c.dc, message(await deliveryOf(hook.id, event.id)));
		const first = c.received[0];
		if (!first) throw new Error('nothing received');
		// Checked by svix's verifier (it throws on a bad signature), not Parley's code, and by the Standard
		// Webhooks formula computed here with WebCrypto, since svix verifies with the library Parley signs with.
		expect(() => new SvixWebhook(hook.secret).verify(first.body, first.headers)).not.toThrow();
		expect(first.headers['webhook-signature']?.split(' ')).toContain(await byFormula(hook.secret, first));
		const payload = JSON.parse(first.body) as { type: string; data: { id: string; tag: { name: string } } };
		expect(payload).toMatchObject({ type: 'tag.created', data: { id: event.id, tag: { name: 'first' } } });
		expect(first.headers['webhook-id']).toBe(event.id);
		const tampered = first.body.replace('first', 'other');
		expect(() => new SvixWebhook(hook.secret).verify(tampered, first.headers)).toThrow();

		const rotated = await api(token, 'POST', `/v3/webhooks/${hook.id}/rotate-secret`, { overlapSeconds: 3600 });
		const { secret: newSecret, secrets } = (await rotated.json()) as { secret: string; secrets: unknown[] };
		expect(secrets).toHaveLength(2);
		const second = tagEvent(workspaceId, 'second', c.at());
		await fanOut({ ...env, WEBHOOK_DELIVERIES: c.dc.queue } as Env, db, second, c.at());
		await attemptDelivery(c.dc, message(await deliveryOf(hook.id, second.id)));
		const during = c.received[1];
		if (!during) throw new Error('nothing received');
		expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
		// Either secret verifies it: the receiver switches when it likes.
		for (const secret of [hook.secret, newSecret])
			expect(() => new SvixWebhook(secret).verify(during.body, during.headers)).not.toThrow();
		// A rotation with no overlap retires every older secret at once.
		const again = await api(token, 'POST', `/v3/webhooks/${hook.id}/rotate-secret`, { overlapSeconds: 0 });
		const { secret: newest } = (await again.json()) as { secret: string };
		c.advance(Math.max(0, Date.now() + 1000 - c.at()));
		const third = tagEvent(workspaceId, 'third', c.at());
		await fanOut({ ...env, WEBHOOK_DELIVERIES: c.dc.queue } as Env, db, third, c.at());
		await attemptDelivery(c.dc, message(await deliveryOf(hook.id, third.id)));
		const after = c.received[2];
		if (!after) throw new Error('nothing received');
		expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
		expect(() => new SvixWebhook(newest).verify(after.body, after.headers)).not.toThrow();
		for (const old of [hook.secret, newSecret])
			expect(() => new SvixWebhook(old).verify(after.body, after.headers)).toThrow();
	});

	it('retries on the Standard Webhooks schedule, then fails; five days of failures disable the endpoint and say so', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const hook = await endpoint(token, ['tag.created']);
		const c = courier(() => new Response('down', { status: 503 }));
		const event = tagEvent(workspaceId, 'retry', c.at());
		await fanOut({ ...env, WEBHOOK_DELIVERIES: c.dc.queue } as Env, db, event, c.at());
		let row = await deliveryOf(hook.id, event.id);
		await attemptDelivery(c.dc, message(row));
		// Each try failed; the next waits as scheduled (a day is waited in two 12-hour legs).
		const waits: number[] = [];
		for (;;) {
			row = await deliveryOf(hook.id, event.id);
			if (row.status !== 'pending' || row.nextAttemptAt === null) break;
			const last = c.sent.at(-1);
			waits.push(last?.delaySeconds ?? -1);
			c.advance(row.nextAttemptAt - c.at());
			await attemptDelivery(c.dc, message(row));
		}
		expect(waits).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000, 43_200, 43_200, 43_200]);
		expect(row).toMatchObject({ status: 'failed', attempts: RETRY_SCHEDULE.length });
		expect(c.received).toHaveLength(RETRY_SCHEDULE.length);
		// A redelivered message of a finished delivery does nothing.
		await attemptDelivery(c.dc, message({ ...row, nextAttemptAt: 0 }));
		expect(c.received).toHaveLength(RETRY_SCHEDULE.length);
		const failing = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, hook.id)).get();
		expect(failing).toMatchObject({ enabled: true });
		// Another event a day later fails too: five days of failures, and the endpoint is disabled.
		c.advance(24 * 3600_000);
		const later = tagEvent(workspaceId, 'later', c.at());
		await fanOut({ ...env, WEBHOOK_DELIVERIES: c.dc.queue } as Env, db, later, c.at());
		await attemptDelivery(c.dc, message(await deliveryOf(hook.id, later.id)));
		const disabled = (await (await api(token, 'GET', `/v3/webhooks/${hook.id}`)).json()) as {
			enabled: boolean;
			disabledReason: string;
		};
		expect(disabled.enabled).toBe(false);
		expect(disabled.disabledReason).toContain('days');
		await expect
			.poll(async () =>
				(await db.select().from(events).where(eq(events.workspaceId, workspaceId)))
					.filter((e) => e.type === 'webhook_endpoint.disabled')
					.map((e) => (e.payload as { endpoint: { id: string } }).endpoint.id),
			)
			.toEqual([hook.id]);
		// Enabling it again forgives its failures.
		const enabled = await api(token, 'PATCH', `/v3/webhooks/${hook.id}`, { enabled: true });
		expect(await enabled.json()).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
	});

	it('lists failed deliveries and re-sends one on request', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const hook = await endpoint(token, ['tag.created']);
		let up = false;
		const c = courier(() => (up ? new Response('thanks') : new Response('no', { status: 400 })));
		const event = tagEvent(workspaceId, 'resend', c.at());
		await fanOut({ ...env, WEBHOOK_DELIVERIES: c.dc.queue } as Env, db, event, c.at());
		// Its first try is refused (a 4xx); the retries still to come are cut short here, as if all had failed.
		await attemptDelivery(c.dc, message(await deliveryOf(hook.id, event.id)));
		const row = await deliveryOf(hook.id, event.id);
		expect(row).toMatchObject({ attempts: 1, status: 'pending' });
		await failAll(row.id);
		const failed = (await (await api(token, 'GET', `/v3/webhooks/${hook.id}/deliveries?status=failed`)).json()) as {
			data: Array<{ id: string }>;
		};
		expect(failed.data.map((d) => d.id)).toEqual([row.id]);
		// The re-send goes through the real Queue to the real consumer, which makes the second try: to an address
		// this deployment refuses (as in the first test), so it fails at once with no network.
		await refuseAddress(hook.id);
		const resent = await api(token, 'POST', `/v3/webhooks/${hook.id}/deliveries/${row.id}/resend`);
		expect(resent.status).toBe(200);
		expect(await resent.json()).toMatchObject({ status: 'pending', attempts: 1 });
		// Already being sent: a second re-send is refused.
		await expectError(await api(token, 'POST', `/v3/webhooks/${hook.id}/deliveries/${row.id}/resend`), 409);
		await expect.poll(async () => (await triesOf(row.id)).map((t) => t.attempt)).toEqual([1, 2]);
		await expect.poll(async () => (await deliveryOf(hook.id, event.id)).attempts).toBe(2);
		// A copy of a due try's message arriving while the try is under way makes no second try. The due try is
		// set up as a re-send leaves it, at a time of the test's own (the real consumer's retry, a few seconds
		// ahead, is then a stale copy and dropped).
		await reachableAddress(hook.id);
		up = true;
		const pending = await dueNow(row.id, c.at());
		let copies = 0;
		const inner = courier(() => {
			copies++;
			return new Response('thanks');
		});
		const during = courier(async () => {
			await attemptDelivery(inner.dc, message(pending));
			return new Response('thanks');
		});
		await attemptDelivery(during.dc, message(pending));
		expect(copies).toBe(0);
		expect(during.received).toHaveLength(1);
		expect(during.received[0]?.headers['webhook-id']).toBe(event.id);
		expect(await deliveryOf(hook.id, event.id)).toMatchObject({ status: 'succeeded', attempts: 3 });
		// Once more through the API, now that it arrived: the real consumer tries again.
		await refuseAddress(hook.id);
		const again = await api(token, 'POST', `/v3/webhooks/${hook.id}/deliveries/${row.id}/resend`);
		expect(again.status).toBe(200);
		expect(await again.json()).toMatchObject({ status: 'pending', attempts: 3 });
		await expect.poll(async () => (await triesOf(row.id)).map((t) => t.attempt)).toEqual([1, 2, 3, 4]);
		// Bad input changes nothing.
		await expectError(await api(token, 'POST', '/v3/webhooks', { url: 'http://10.0.0.1/x', events: ['*'] }), 422);
		await expectError(await api(token, 'POST', '/v3/webhooks', { url: 'https://a.example', events: ['nope'] }), 422);
	});
});
