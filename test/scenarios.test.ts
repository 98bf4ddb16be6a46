import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { events, scenarioRuns, scenarioSteps, scenarios } from '../src/db/schema';
import { deadLetter, driveRun, type RunnerContext } from '../src/domain/automation/scenarios/runner';
import { retryRun, type ScenarioRunMessage, startRun } from '../src/domain/automation/scenarios/runs';
import { fireSchedules, startEventScenarios } from '../src/domain/automation/scenarios/triggers';
import { newScenarioRun } from '../src/engines/scenario-interpreter';
import type { DomainEvent } from '../src/model/events';
import { api, db, expectError, publishedScenario, runWhen, seedOperator, seedWorkspace } from './factories';

/** The order-to-conversation scenario of the issue: find or create the contact, open a conversation, say so, sell. */
function orderScenario(url = 'https://erp.example/orders/{{ orderId | url_encode }}/synced') {
	return {
		start: 'find',
		steps: [
			{
				id: 'find',
				type: 'find_contact',
				by: 'email',
				value: '{{ email }}',
				variable: 'contact',
				next: 'conversation',
				onNotFound: 'create',
			},
			{
				id: 'create',
				type: 'create_contact',
				name: '{{ name }}',
				email: '{{ email }}',
				variable: 'contact',
				next: 'conversation',
			},
			{
				id: 'conversation',
				type: 'create_conversation',
				contact: '{{ contact.id }}',
				variable: 'conversation',
				next: 'tell',
			},
			{
				id: 'tell',
				type: 'send_message',
				conversation: '{{ conversation.id }}',
				text: 'Order {{ orderId }} shipped, {{ name }}!',
				next: 'deal',
			},
			{
				id: 'deal',
				type: 'create_deal',
				contact: '{{ contact.id }}',
				funnel: 'Sales',
				name: 'Order {{ orderId }}',
				value: '{{ total }}',
				variable: 'deal',
				next: 'sync',
			},
			{
				id: 'sync',
				type: 'http_request',
				method: 'POST',
				url,
				body: '{"deal": {{ deal.id | json }}}',
				retries: 1,
				response: { erp_id: 'id' },
			},
		],
	};
}

async function funnel(token: string) {
	expect((await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] })).status).toBe(201);
}

async function count(sql: string, ...binds: unknown[]) {
	const row = await env.DB.prepare(sql)
		.bind(...binds)
		.first<{ n: number }>();
	return row?.n ?? 0;
}

/** The runner with a Queue that keeps what is sent (delays included), a clock and a network the test controls. */
function runner(answer: (request: Request) => Response | Promise<Response>) {
	const sent: Array<{ body: ScenarioRunMessage; delaySeconds?: number }> = [];
	const calls: Request[] = [];
	let now = Date.now();
	const rc: RunnerContext = {
		env,
		db,
		queue: {
			send: async (body: ScenarioRunMessage, options?: { delaySeconds?: number }) => {
				sent.push({ body, ...(options?.delaySeconds === undefined ? {} : { delaySeconds: options.delaySeconds }) });
			},
		} as unknown as Queue<ScenarioRunMessage>,
		now: () => now,
		transport: (async (input: RequestInfo | URL, init?: RequestInit) => {
			const request = new Request(input, init);
			calls.push(request.clone());
			return answer(request);
		}) as typeof fetch,
	};
	return { rc, sent, calls, advance: (ms: number) => (now += ms) };
}

/** A run started through the domain with the runner's Queue (the real consumer never sees it). */
async function startedRun(rc: RunnerContext, workspaceId: string, scenarioId: string, input: Record<string, unknown>) {
	const { run } = await startRun(env, db, rc.queue, {
		workspaceId,
		scenarioId,
		trigger: 'api',
		source: null,
		dedupeKey: null,
		input,
	});
	return { runId: run.id, workspaceId };
}

const order = { orderId: '1042', email: 'ada@example.com', name: 'Ada', total: '1500.00' };

describe('scenario definitions and versions', () => {
	it('names every problem at its step and field, and keeps a draft apart from its published versions', async () => {
		const { token } = await seedWorkspace();
		const bad = await api(token, 'POST', '/v3/scenarios', {
			name: 'Broken',
			definition: {
				start: 'a',
				steps: [
					{
						id: 'a',
						type: 'http_request',
						method: 'POST',
						url: 'https://x.example',
						body: '{"n": {{ n }}}',
						next: 'b',
					},
					{ id: 'b', type: 'set_variables', values: { x: '{{ x' }, next: 'a' },
				],
			},
		});
		const error = (await expectError(bad, 422)) as {
			message: string;
			details?: { problems?: Array<{ path: unknown[] }> };
		};
		expect(error.message).toContain('definition.steps.0.body');
		expect(error.message).toContain('definition.steps.1.values');
		const created = await api(token, 'POST', '/v3/scenarios', { name: 'Order', definition: orderScenario() });
		const scenario = (await created.json()) as { id: string; publishedVersion: number | null };
		expect(scenario.publishedVersion).toBeNull();
		// Not published yet: nothing can start it.
		await expectError(await api(token, 'POST', `/v3/scenarios/${scenario.id}/runs`, order), 409);
		expect((await api(token, 'POST', `/v3/scenarios/${scenario.id}/publish`)).status).toBe(200);
		const edited = orderScenario();
		(edited.steps[3] as { text: string }).text = 'Order {{ orderId }} is on its way, {{ name }}!';
		expect((await api(token, 'PATCH', `/v3/scenarios/${scenario.id}`, { definition: edited })).status).toBe(200);
		expect((await api(token, 'POST', `/v3/scenarios/${scenario.id}/publish`)).status).toBe(200);
		const versions = (await (await api(token, 'GET', `/v3/scenarios/${scenario.id}/versions`)).json()) as {
			data: Array<{ version: number; published: boolean }>;
		};
		expect(versions.data.map((v) => [v.version, v.published])).toEqual([
			[2, true],
			[1, false],
		]);
		const rolledBack = await api(token, 'POST', `/v3/scenarios/${scenario.id}/versions/1/publish`);
		expect(((await rolledBack.json()) as { publishedVersion: number }).publishedVersion).toBe(1);
		const textOf = (definition: { steps: Array<{ id: string; text?: string }> }) =>
			definition.steps.find((step) => step.id === 'tell')?.text;
		const one = (await (await api(token, 'GET', `/v3/scenarios/${scenario.id}/versions/1`)).json()) as {
			definition: { steps: Array<{ id: string; text?: string }> };
		};
		const two = (await (await api(token, 'GET', `/v3/scenarios/${scenario.id}/versions/2`)).json()) as typeof one;
		expect(textOf(one.definition)).toBe('Order {{ orderId }} shipped, {{ name }}!');
		expect(textOf(two.definition)).toBe('Order {{ orderId }} is on its way, {{ name }}!');
		// The rollback leaves the draft as it was edited.
		const now = (await (await api(token, 'GET', `/v3/scenarios/${scenario.id}`)).json()) as {
			draft: { steps: Array<{ id: string; text?: string }> };
		};
		expect(textOf(now.draft)).toBe('Order {{ orderId }} is on its way, {{ name }}!');
		// Only admins manage scenarios.
		const agent = await seedOperator(
			((await api(token, 'GET', '/v3/me').then((r) => r.json())) as { workspaceId: string }).workspaceId,
			['conversations:read'],
		);
		await expectError(await api(agent.token, 'GET', '/v3/scenarios'), 403);
	});

	it('test-runs an unsaved definition on a sample payload, performing nothing', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/scenarios/test', {
			definition: orderScenario(),
			input: order,
			results: {
				find: { ok: true, notFound: true },
				create: { ok: true, data: { id: 'ctc_1' } },
				conversation: { ok: true, data: { id: 'conv_1' } },
				deal: { ok: true, data: { id: 'deal_1' } },
				sync: { ok: true, data: { id: 'erp-9' } },
			},
		});
		expect(res.status).toBe(200);
		const result = (await res.json()) as {
			status: string;
			variables: Record<string, unknown>;
			log: Array<{ stepId: string }>;
			actions: Array<{ stepId: string; step: { text?: string; url?: string } }>;
		};
		expect(result.status).toBe('succeeded');
		expect(result.log.map((l) => l.stepId)).toEqual(['find', 'create', 'conversation', 'tell', 'deal', 'sync']);
		expect(result.actions.find((a) => a.stepId === 'tell')?.step.text).toBe('Order 1042 shipped, Ada!');
		expect(result.actions.find((a) => a.stepId === 'sync')?.step.url).toBe('https://erp.example/orders/1042/synced');
		expect(result.variables.erp_id).toBe('erp-9');
		expect(await count('SELECT count(*) AS n FROM contacts WHERE workspace_id = ?', workspaceId)).toBe(0);
	});
});

describe('scenario runs on the Queue', () => {
	it('runs the order scenario from a signed webhook through the real Queue: contact, conversation, message, deal', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await funnel(token);
		// Without the HTTP step: the real consumer's network is the Internet.
		const definition = orderScenario();
		definition.steps.pop();
		delete (definition.steps.at(-1) as { next?: string }).next;
		const { scenarioId, webhook } = await publishedScenario(token, definition);
		const body = JSON.stringify(order);
		const at = new Date();
		const res = await api(null, 'POST', `/v3/workflows/webhook/${webhook.id}`, body, {
			'webhook-id': 'msg_order_1042',
			'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
			'webhook-signature': new Webhook(webhook.secret).sign('msg_order_1042', at, body),
		});
		expect(res.status).toBe(202);
		const { runId } = (await res.json()) as { runId: string };
		const run = await runWhen(token, scenarioId, runId);
		expect(run.status).toBe('succeeded');
		expect(run.log.map((l) => l.stepId)).toEqual(['find', 'create', 'conversation', 'tell', 'deal']);
		const conversationId = (run.variables.conversation as { id: string }).id;
		const messages = (await (await api(token, 'GET', `/v3/conversations/${conversationId}/messages`)).json()) as {
			data: Array<{ text: string; authorKind: string }>;
		};
		expect(messages.data.map((m) => [m.authorKind, m.text])).toContainEqual(['bot', 'Order 1042 shipped, Ada!']);
		const deal = (await (await api(token, 'GET', `/v3/deals/${(run.variables.deal as { id: string }).id}`)).json()) as {
			name: string;
			value: number;
			contactId: string;
		};
		expect(deal).toMatchObject({
			name: 'Order 1042',
			value: 150000,
			contactId: (run.variables.contact as { id: string }).id,
		});
		expect(await count('SELECT count(*) AS n FROM contacts WHERE workspace_id = ?', workspaceId)).toBe(1);
		// The second order of the same customer finds the contact instead of making another.
		const again = await api(token, 'POST', `/v3/scenarios/${scenarioId}/runs`, { ...order, orderId: '1043' });
		const second = await runWhen(token, scenarioId, ((await again.json()) as { runId: string }).runId);
		expect(second.log.map((l) => l.stepId)).toEqual(['find', 'conversation', 'tell', 'deal']);
		expect(await count('SELECT count(*) AS n FROM contacts WHERE workspace_id = ?', workspaceId)).toBe(1);
	});

	it('repeats none of the completed steps when a message is delivered again, or twice at once', async () => {
		const { token, workspaceId } = await seedWorkspace();
		await funnel(token);
		const { scenarioId } = await publishedScenario(token, orderScenario());
		const r = runner(() => Response.json({ id: 'erp-1' }));
		const message = await startedRun(r.rc, workspaceId, scenarioId, order);
		// The first delivery takes the run to its HTTP step; the runner is cut off right after the call.
		let snapshot: typeof scenarioRuns.$inferSelect | undefined;
		const cut = runner(async () => {
			snapshot = await db.select().from(scenarioRuns).where(eq(scenarioRuns.id, message.runId)).get();
			// A second delivery of the message meanwhile finds the step claimed, leaves it to this one and looks
			// again later.
			await driveRun(r.rc, message);
			expect(r.sent.at(-1)).toEqual({ body: message, delaySeconds: 15 });
			return Response.json({ id: 'erp-1' });
		});
		await driveRun(cut.rc, message);
		expect(snapshot?.state.waitingAt).toBe('sync');
		expect(snapshot?.log.map((l) => l.stepId)).toEqual(['find', 'create', 'conversation', 'tell', 'deal']);
		// As if nothing after the call had been written: the run stands waiting on the HTTP step, as the
		// snapshot shows, and its message comes again.
		await db
			.update(scenarioRuns)
			.set({ ...snapshot, turn: (snapshot?.turn ?? 0) + 10 })
			.where(eq(scenarioRuns.id, message.runId));
		await driveRun(r.rc, message);
		// A third delivery of the very first message, from the start, finds everything recorded.
		await db
			.update(scenarioRuns)
			.set({ status: 'queued', state: newScenarioRun(), pending: null, log: [], turn: 100 })
			.where(eq(scenarioRuns.id, message.runId));
		await driveRun(r.rc, message);
		const run = await db.select().from(scenarioRuns).where(eq(scenarioRuns.id, message.runId)).get();
		expect(run?.status).toBe('succeeded');
		expect(run?.state.variables.erp_id).toBe('erp-1');
		expect(cut.calls).toHaveLength(1);
		expect(r.calls).toHaveLength(0);
		expect(await count('SELECT count(*) AS n FROM contacts WHERE workspace_id = ?', workspaceId)).toBe(1);
		expect(await count('SELECT count(*) AS n FROM conversations WHERE workspace_id = ?', workspaceId)).toBe(1);
		expect(await count('SELECT count(*) AS n FROM deals WHERE workspace_id = ?', workspaceId)).toBe(1);
		// The room writes its messages to D1 after the fact: wait for the one, and see it stays one.
		const told = () =>
			count("SELECT count(*) AS n FROM messages WHERE workspace_id = ? AND body LIKE 'Order 1042%'", workspaceId);
		await expect.poll(told).toBeGreaterThan(0);
		expect(await told()).toBe(1);
		expect(await db.select().from(scenarioSteps).where(eq(scenarioSteps.runId, message.runId))).toHaveLength(6);
	});

	it('retries a failing HTTP step after a delay without sleeping, then takes its error path', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const definition = {
			start: 'sync',
			steps: [
				{ id: 'sync', type: 'http_request', method: 'GET', url: 'https://erp.example/x', retries: 1, onError: 'note' },
				{ id: 'note', type: 'set_variables', values: { failed: 'yes: {{ error }}' } },
			],
		};
		const { scenarioId } = await publishedScenario(token, definition);
		const r = runner(() => new Response('busy', { status: 503 }));
		const message = await startedRun(r.rc, workspaceId, scenarioId, {});
		await driveRun(r.rc, message);
		// The retry went back on the Queue with a delay; the delivery ended.
		expect(r.sent.at(-1)).toEqual({ body: message, delaySeconds: 5 });
		const waiting = await db.select().from(scenarioRuns).where(eq(scenarioRuns.id, message.runId)).get();
		expect(waiting).toMatchObject({ status: 'waiting' });
		// A redelivery before the delay is up does nothing.
		await driveRun(r.rc, message);
		expect(r.calls).toHaveLength(1);
		r.advance(5_000);
		await driveRun(r.rc, message);
		expect(r.calls).toHaveLength(2);
		const run = await db.select().from(scenarioRuns).where(eq(scenarioRuns.id, message.runId)).get();
		expect(run?.status).toBe('succeeded');
		expect(run?.state.variables.failed).toBe('yes: the answer was HTTP 503');
		expect(run?.log.map((l) => [l.stepId, l.error ?? 'ok'])).toEqual([
			['sync', 'the answer was HTTP 503; retry 1 in 5 s'],
			['sync', 'the answer was HTTP 503'],
			['note', 'ok'],
		]);
	});

	it('fails a run at its step, lists it, and retries it from the failed step without repeating earlier ones', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const definition = orderScenario();
		definition.steps.splice(4, 1);
		(definition.steps[3] as { next?: string }).next = 'sync';
		(definition.steps[4] as { body?: string }).body = undefined;
		const { scenarioId } = await publishedScenario(token, definition);
		const failing = runner(() => new Response('no', { status: 400 }));
		const message = await startedRun(failing.rc, workspaceId, scenarioId, order);
		await driveRun(failing.rc, message);
		const failed = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}/runs?status=failed`)).json()) as {
			data: Array<{ id: string; error: string; retryable: boolean }>;
		};
		expect(failed.data).toEqual([
			expect.objectContaining({ id: message.runId, error: 'sync: the answer was HTTP 400', retryable: true }),
		]);
		const working = runner(() => Response.json({ id: 'erp-2' }));
		await retryRun(db, working.rc.queue, workspaceId, scenarioId, message.runId);
		expect(working.sent).toHaveLength(1);
		await driveRun(working.rc, message);
		const run = await db.select().from(scenarioRuns).where(eq(scenarioRuns.id, message.runId)).get();
		expect(run?.status).toBe('succeeded');
		expect(run?.state.variables.erp_id).toBe('erp-2');
		expect(await count('SELECT count(*) AS n FROM conversations WHERE workspace_id = ?', workspaceId)).toBe(1);
		// A run that succeeded has nothing to retry.
		await expectError(await api(token, 'POST', `/v3/scenarios/${scenarioId}/runs/${message.runId}/retry`), 409);
	});

	it('marks a run whose deliveries all failed as failed (the dead-letter path), and the retry route runs it', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const { scenarioId } = await publishedScenario(token, {
			start: 'keep',
			steps: [{ id: 'keep', type: 'set_variables', values: { got: '{{ orderId }}' } }],
		});
		const r = runner(() => new Response(null, { status: 500 }));
		const message = await startedRun(r.rc, workspaceId, scenarioId, { orderId: '9' });
		// A run written in the last minutes is being driven by a live delivery: its dead letter fails nothing.
		await deadLetter(r.rc, message);
		expect((await db.select().from(scenarioRuns).where(eq(scenarioRuns.id, message.runId)).get())?.status).toBe(
			'queued',
		);
		r.advance(6 * 60_000);
		await deadLetter(r.rc, message);
		const listed = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}/runs/${message.runId}`)).json()) as {
			status: string;
			error: string;
			retryable: boolean;
		};
		expect(listed).toMatchObject({ status: 'failed', retryable: true });
		expect(listed.error).toContain('gave up');
		const retried = await api(token, 'POST', `/v3/scenarios/${scenarioId}/runs/${message.runId}/retry`);
		expect(retried.status).toBe(200);
		// Through the real Queue and consumer this time.
		const run = await runWhen(token, scenarioId, message.runId);
		expect(run).toMatchObject({ status: 'succeeded', variables: { orderId: '9', got: '9' } });
	});
});

describe('scenario triggers', () => {
	it('starts an event scenario when its event happens and its condition holds, once per event', async () => {
		const { token } = await seedWorkspace();
		const { scenarioId } = await publishedScenario(
			token,
			{
				start: 'keep',
				steps: [{ id: 'keep', type: 'set_variables', values: { tagged: '{{ event.payload.tag.name }}' } }],
			},
			{
				trigger: {
					kind: 'event',
					events: ['tag.applied'],
					condition: { fact: 'vars.event.payload.tag.name', operator: 'eq', value: 'vip' },
				},
			},
		);
		const contact = (await (await api(token, 'POST', '/v3/contacts', { name: 'Ana' })).json()) as { id: string };
		await api(token, 'PUT', `/v3/contacts/${contact.id}/tags/regular`);
		await api(token, 'PUT', `/v3/contacts/${contact.id}/tags/vip`);
		await expect
			.poll(async () => (await db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId))).length)
			.toBe(1);
		const [row] = await db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId));
		const run = await runWhen(token, scenarioId, row?.id ?? '');
		expect(run).toMatchObject({ status: 'succeeded', trigger: 'event', variables: { tagged: 'vip' } });
		// The same vip event delivered again starts no second run.
		const [recorded] = await db
			.select()
			.from(events)
			.where(eq(events.id, run.source as string));
		if (!recorded) throw new Error('the event was not recorded');
		await startEventScenarios(env, db, {
			id: recorded.id,
			type: 'tag.applied',
			workspaceId: recorded.workspaceId,
			occurredAt: new Date(recorded.occurredAt).toISOString(),
			actor: recorded.actor ?? { kind: 'system', id: null },
			payload: recorded.payload,
		} as DomainEvent);
		expect(await db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId))).toHaveLength(1);
	});

	it('fires a scheduled scenario at the right local time, once per time', async () => {
		const { token, workspaceId } = await seedWorkspace();
		// The workspace lives in São Paulo (UTC−3): 09:00 there is 12:00 UTC.
		const settings = await api(token, 'PUT', '/v3/widget/settings', {
			businessHours: { timeZone: 'America/Sao_Paulo' },
		});
		expect(settings.status).toBe(200);
		const { scenarioId } = await publishedScenario(
			token,
			{ start: 'keep', steps: [{ id: 'keep', type: 'set_variables', values: { at: '{{ firedAt }}' } }] },
			{ trigger: { kind: 'schedule', cron: '0 9 * * *' } },
		);
		const scenario = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}`)).json()) as {
			trigger: { nextFireAt: string };
		};
		const fireAt = new Date(scenario.trigger.nextFireAt);
		expect(fireAt.getUTCHours()).toBe(12);
		expect(fireAt.getUTCMinutes()).toBe(0);
		// A minute before: nothing. At the time: one run. The same minute swept again: still one.
		await fireSchedules(env, db, fireAt.getTime() - 60_000);
		expect(await db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId))).toHaveLength(0);
		await fireSchedules(env, db, fireAt.getTime() + 5_000);
		await fireSchedules(env, db, fireAt.getTime() + 10_000);
		const runs = await db.select().from(scenarioRuns).where(eq(scenarioRuns.scenarioId, scenarioId));
		expect(runs).toHaveLength(1);
		expect(runs[0]).toMatchObject({ trigger: 'schedule', workspaceId });
		const next = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}`)).json()) as {
			trigger: { nextFireAt: string };
		};
		expect(new Date(next.trigger.nextFireAt).getTime() - fireAt.getTime()).toBe(24 * 3600_000);
		const run = await runWhen(token, scenarioId, runs[0]?.id ?? '');
		expect(run.variables.at).toBe(fireAt.toISOString());
		// Disabled, then enabled again later: it counts from then rather than fire for what it missed.
		await api(token, 'PATCH', `/v3/scenarios/${scenarioId}`, { enabled: false });
		await db.update(scenarios).set({ nextFireAt: fireAt.getTime() }).where(eq(scenarios.id, scenarioId));
		await api(token, 'PATCH', `/v3/scenarios/${scenarioId}`, { enabled: true });
		const resumed = (await (await api(token, 'GET', `/v3/scenarios/${scenarioId}`)).json()) as {
			trigger: { nextFireAt: string };
		};
		expect(Date.parse(resumed.trigger.nextFireAt)).toBeGreaterThan(Date.now());
	});
});
