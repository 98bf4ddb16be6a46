import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectError, seedOperator, seedWorkspace } from './factories';
import { leadBot } from './unit/bot-fixtures';

interface Bot {
	id: string;
	name: string;
	trigger: { kind: string; keywords: string[]; stageId: string | null };
	channels: string[] | null;
	draft: { start: string; steps: Array<Record<string, unknown>> };
	publishedVersion: number | null;
	lastVersion: number;
}

const greeter = (text: string) => ({
	start: 'hi',
	steps: [
		{ id: 'hi', type: 'send_message', text, next: 'email' },
		{
			id: 'email',
			type: 'data_entry',
			prompt: 'Your e-mail?',
			input: 'email',
			variable: 'email',
			validation: { message: 'That is no e-mail, {{contact.name}}.' },
			next: 'bye',
		},
		{ id: 'bye', type: 'end', message: 'Thanks, {{ email }}!' },
	],
});

async function newBot(token: string, body: Record<string, unknown> = {}): Promise<Bot> {
	const res = await api(token, 'POST', '/v3/bots', {
		name: 'Greeter',
		trigger: { kind: 'new_conversation' },
		definition: greeter('Hello!'),
		...body,
	});
	expect(res.status).toBe(201);
	return (await res.json()) as Bot;
}

async function botCount(workspaceId: string) {
	return env.DB.prepare('SELECT count(*) AS n FROM bots WHERE workspace_id = ?').bind(workspaceId).first('n');
}

describe('/v3/bots', () => {
	it('saves a draft that runs nowhere until published, and lists it', async () => {
		const { token } = await seedWorkspace();
		const bot = await newBot(token, { channels: ['widget', 'api'] });
		expect(bot).toMatchObject({
			name: 'Greeter',
			trigger: { kind: 'new_conversation', keywords: [], stageId: null },
			channels: ['widget', 'api'],
			publishedVersion: null,
			lastVersion: 0,
		});
		expect(bot.draft.steps[0]).toMatchObject({ id: 'hi', typingSeconds: 0 });
		const list = (await (await api(token, 'GET', '/v3/bots')).json()) as { data: Bot[] };
		expect(list.data.map((b) => b.id)).toEqual([bot.id]);
		expect(await (await api(token, 'GET', `/v3/bots/${bot.id}`)).json()).toEqual(bot);
	});

	it('refuses a definition naming each problem at its step and field, saving nothing', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const broken = structuredClone(leadBot) as { steps: Array<Record<string, unknown>> };
		(broken.steps[2] as { validation: Record<string, unknown> }).validation.pattern = '(a+)+$';
		(broken.steps[0] as Record<string, unknown>).next = 'nowhere';
		const res = await api(token, 'POST', '/v3/bots', {
			name: 'Broken',
			trigger: { kind: 'new_conversation' },
			definition: broken,
		});
		const body = (await expectError(res, 422)) as unknown as { errors: Array<{ field: string; message: string }> };
		expect(JSON.stringify(body)).toContain('definition.steps.0.next');
		expect(JSON.stringify(body)).toContain('definition.steps.2.validation.pattern');
		expect(await botCount(workspaceId)).toBe(0);
	});

	it('refuses a notify step without its text, or naming an operator who is no member, saving nothing', async () => {
		const { token, workspaceId, operatorId } = await seedWorkspace();
		const stranger = await seedWorkspace();
		const notifying = (notify: Record<string, unknown>) => ({
			start: 'hi',
			steps: [
				{ id: 'hi', type: 'send_message', text: 'Hello!', next: 'tell' },
				{ id: 'tell', type: 'notify', ...notify, onError: 'bye' },
				{ id: 'bye', type: 'end' },
			],
		});
		const create = (definition: unknown) =>
			api(token, 'POST', '/v3/bots', { name: 'Notifier', trigger: { kind: 'manual' }, definition });
		const noText = JSON.stringify(await expectError(await create(notifying({ operatorIds: [operatorId] })), 422));
		expect(noText).toContain('definition.steps.1.text');
		const strangers = await expectError(
			await create(notifying({ text: 'Look', operatorIds: [operatorId, stranger.operatorId, 'op_nobody'] })),
			422,
		);
		expect(strangers.message).toContain(
			`definition.steps.1.operatorIds.1: no operator ${stranger.operatorId} in this workspace; json.definition.steps.1.operatorIds.2: no operator op_nobody in this workspace`,
		);
		expect(strangers.message).not.toContain('operatorIds.0');
		expect(await botCount(workspaceId)).toBe(0);
		// A draft changed to name a stranger is refused too, and the draft stays as it was.
		const saved = await create(notifying({ text: 'Look', operatorIds: [operatorId] }));
		expect(saved.status, await saved.clone().text()).toBe(201);
		const bot = (await saved.json()) as Bot;
		expect(bot.draft.steps[1]).toMatchObject({ type: 'notify', text: 'Look', operatorIds: [operatorId] });
		const changed = await api(token, 'PATCH', `/v3/bots/${bot.id}`, {
			definition: notifying({ text: 'Look', operatorIds: [stranger.operatorId] }),
		});
		await expectError(changed, 422);
		expect(await (await api(token, 'GET', `/v3/bots/${bot.id}`)).json()).toEqual(bot);
	});

	it('refuses a nested loop hidden in a comment or raw text, saving nothing', async () => {
		const { token, workspaceId } = await seedWorkspace();
		for (const hide of ['{% comment %}{% endfor %}{% endcomment %}', '{% raw %}{% endfor %}{% endraw %}']) {
			const text = `{% for a in (1..1000) %}${hide}{% for b in (1..1000) %}x{% endfor %}{% endfor %}`;
			const res = await api(token, 'POST', '/v3/bots', {
				name: 'Million',
				trigger: { kind: 'new_conversation' },
				definition: greeter(text),
			});
			const body = await expectError(res, 422);
			expect(JSON.stringify(body)).toMatch(
				/definition\.steps\.0\.text[^"]*: not a valid template: loops may not be nested/,
			);
		}
		expect(await botCount(workspaceId)).toBe(0);
	});

	it('publishes versions, lists them, rolls back, and keeps numbering forward', async () => {
		const { token } = await seedWorkspace();
		const bot = await newBot(token);
		const v1 = (await (await api(token, 'POST', `/v3/bots/${bot.id}/publish`)).json()) as Bot;
		expect(v1).toMatchObject({ publishedVersion: 1, lastVersion: 1 });
		await api(token, 'PATCH', `/v3/bots/${bot.id}`, { definition: greeter('Hello again!') });
		const v2 = (await (await api(token, 'POST', `/v3/bots/${bot.id}/publish`)).json()) as Bot;
		expect(v2).toMatchObject({ publishedVersion: 2, lastVersion: 2 });
		const versions = (await (await api(token, 'GET', `/v3/bots/${bot.id}/versions`)).json()) as {
			data: Array<{ version: number; published: boolean }>;
		};
		expect(versions.data.map((v) => [v.version, v.published])).toEqual([
			[2, true],
			[1, false],
		]);
		const back = (await (await api(token, 'POST', `/v3/bots/${bot.id}/versions/1/publish`)).json()) as Bot;
		expect(back).toMatchObject({ publishedVersion: 1, lastVersion: 2 });
		// The draft is untouched by a rollback; the frozen version keeps its own text.
		expect(back.draft.steps[0]?.text).toBe('Hello again!');
		const one = (await (await api(token, 'GET', `/v3/bots/${bot.id}/versions/1`)).json()) as {
			published: boolean;
			definition: Bot['draft'];
		};
		expect(one.published).toBe(true);
		expect(one.definition.steps[0]?.text).toBe('Hello!');
		const v3 = (await (await api(token, 'POST', `/v3/bots/${bot.id}/publish`)).json()) as Bot;
		expect(v3).toMatchObject({ publishedVersion: 3, lastVersion: 3 });
		await expectError(await api(token, 'POST', `/v3/bots/${bot.id}/versions/9/publish`), 404);
	});

	it('resolves a deal-stage trigger by funnel and stage name, and refuses an unknown stage', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const funnel = (await (
			await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] })
		).json()) as {
			stages: Array<{ id: string }>;
		};
		const bot = await newBot(token, { trigger: { kind: 'deal_stage', funnel: 'sales', stage: 'Won' } });
		expect(bot.trigger).toEqual({ kind: 'deal_stage', keywords: [], stageId: funnel.stages[1]?.id });
		const bad = await api(token, 'POST', '/v3/bots', {
			name: 'X',
			trigger: { kind: 'deal_stage', funnel: 'Sales', stage: 'Lost' },
			definition: greeter('Hi'),
		});
		expect(JSON.stringify(await expectError(bad, 422))).toContain('trigger.stage');
		const keywordless = await api(token, 'POST', '/v3/bots', {
			name: 'X',
			trigger: { kind: 'keyword', keywords: [] },
			definition: greeter('Hi'),
		});
		await expectError(keywordless, 422);
		expect(await botCount(workspaceId)).toBe(1);
	});

	it('changes settings with a bot.updated event, refuses an empty change, and deletes', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const bot = await newBot(token);
		const changed = (await (
			await api(token, 'PATCH', `/v3/bots/${bot.id}`, {
				enabled: false,
				trigger: { kind: 'keyword', keywords: ['preço'] },
			})
		).json()) as Bot & { enabled: boolean };
		expect(changed).toMatchObject({ enabled: false, trigger: { kind: 'keyword', keywords: ['preço'] } });
		await expectError(await api(token, 'PATCH', `/v3/bots/${bot.id}`, {}), 422);
		await expect
			.poll(async () =>
				(
					await env.DB.prepare("SELECT payload FROM events WHERE workspace_id = ? AND type = 'bot.updated'")
						.bind(workspaceId)
						.all<{ payload: string }>()
				).results.map((r) => JSON.parse(r.payload).changed),
			)
			.toEqual([['enabled', 'trigger', 'keywords']]);
		expect((await api(token, 'DELETE', `/v3/bots/${bot.id}`)).status).toBe(204);
		await expectError(await api(token, 'GET', `/v3/bots/${bot.id}`), 404);
	});

	it('is for admins, and one workspace never sees another’s bots', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const bot = await newBot(token);
		const agent = await seedOperator(workspaceId, ['messages:send']);
		await expectError(await api(agent.token, 'GET', '/v3/bots'), 403);
		const other = await seedWorkspace();
		await expectError(await api(other.token, 'GET', `/v3/bots/${bot.id}`), 404);
		await expectError(await api(other.token, 'POST', `/v3/bots/${bot.id}/publish`), 404);
	});
});

describe('POST /v3/bots/simulate', () => {
	it("runs a saved bot's draft on the inputs given: re-prompts, templates, the end", async () => {
		const { token } = await seedWorkspace();
		const bot = await newBot(token);
		const res = await api(token, 'POST', '/v3/bots/simulate', {
			botId: bot.id,
			inputs: ['nope', 'ana@example.com', 'left over'],
			contact: { name: 'Ana' },
		});
		expect(res.status).toBe(200);
		const run = (await res.json()) as { transcript: unknown[]; status: string; unused: number; variables: unknown };
		expect(run.transcript).toEqual([
			{ from: 'bot', text: 'Hello!' },
			{ from: 'bot', text: 'Your e-mail?' },
			{ from: 'visitor', text: 'nope' },
			{ from: 'bot', text: 'That is no e-mail, Ana.' },
			{ from: 'visitor', text: 'ana@example.com' },
			{ from: 'bot', text: 'Thanks, ana@example.com!' },
		]);
		expect(run).toMatchObject({ status: 'finished', unused: 1, variables: { email: 'ana@example.com' } });
	});

	it('runs an unsaved definition with facts and action results, performing nothing', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/bots/simulate', {
			definition: leadBot,
			inputs: ['Ana', 'ana@example.com', '529.982.247-25', '1-10'],
			facts: { businessHours: { open: true } },
			results: { deal: { ok: false, error: 'no funnel' } },
		});
		expect(res.status).toBe(200);
		const run = (await res.json()) as {
			effects: Array<{ kind: string; step?: { id: string; name?: string } }>;
			transcript: Array<{ text?: string; waited?: number }>;
			status: string;
		};
		expect(run.effects.map((e) => e.step?.id ?? e.kind)).toEqual(['small', 'deal', 'transfer']);
		expect(run.effects[1]?.step?.name).toBe('Ana (1-10)');
		expect(run.transcript[0]).toEqual({ from: 'bot', waited: 1 });
		expect(run.status).toBe('transferred');
		expect(
			await env.DB.prepare('SELECT count(*) AS n FROM deals WHERE workspace_id = ?').bind(workspaceId).first('n'),
		).toBe(0);
	});

	it('shows a notify step’s rendered text among the effects, notifying nobody', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/bots/simulate', {
			definition: {
				start: 'tell',
				steps: [
					{ id: 'tell', type: 'notify', text: '{{ contact.name }} is here', next: 'bye' },
					{ id: 'bye', type: 'end', message: 'Bye' },
				],
			},
			contact: { name: 'Ana' },
		});
		expect(res.status, await res.clone().text()).toBe(200);
		const run = (await res.json()) as { effects: Array<{ step?: Record<string, unknown> }>; status: string };
		expect(run.effects[0]?.step).toMatchObject({ type: 'notify', text: 'Ana is here', operatorIds: [] });
		expect(run.status).toBe('finished');
		const notified = env.DB.prepare('SELECT count(*) AS n FROM events WHERE workspace_id = ? AND type = ?');
		expect(await notified.bind(workspaceId, 'bot.notification').first('n')).toBe(0);
	});

	it('fails the step whose message would pass a message’s length, saying so', async () => {
		const { token } = await seedWorkspace();
		const text = `{% for i in (1..11) %}${'x'.repeat(1000)}{% endfor %}`;
		const res = await api(token, 'POST', '/v3/bots/simulate', { definition: greeter(text), inputs: [] });
		expect(res.status).toBe(200);
		const run = (await res.json()) as { status: string; transcript: unknown[]; reason: string | null };
		expect(run).toMatchObject({ status: 'failed', transcript: [] });
		expect(JSON.stringify(run)).toContain('template: the output is longer than 10000 characters');
	});

	it('waits at a message’s buttons and follows the button chosen', async () => {
		const { token } = await seedWorkspace();
		const definition = {
			start: 'menu',
			steps: [
				{
					id: 'menu',
					type: 'send_message',
					text: 'Sales or support?',
					buttons: [{ label: 'Sales', next: 'sales' }, 'Support'],
					next: 'support',
				},
				{ id: 'sales', type: 'end', message: 'Sales it is.' },
				{ id: 'support', type: 'end', message: 'Support it is.' },
			],
		};
		const waiting = await api(token, 'POST', '/v3/bots/simulate', { definition });
		expect(await waiting.json()).toMatchObject({
			status: 'waiting',
			waitingAt: 'menu',
			transcript: [{ from: 'bot', text: 'Sales or support?', buttons: ['Sales', 'Support'] }],
		});
		const chosen = await api(token, 'POST', '/v3/bots/simulate', { definition, inputs: ['sales'] });
		const run = (await chosen.json()) as { transcript: unknown[]; status: string; log: unknown[] };
		expect(run.transcript.slice(1)).toEqual([
			{ from: 'visitor', text: 'sales' },
			{ from: 'bot', text: 'Sales it is.' },
		]);
		expect(run.log).toContainEqual({ kind: 'log', stepId: 'menu', input: 'sales', output: { button: 0 } });
		expect(run.status).toBe('finished');
	});

	it('refuses a broken inline definition, and both a botId and a definition', async () => {
		const { token } = await seedWorkspace();
		const broken = await api(token, 'POST', '/v3/bots/simulate', { definition: { start: 'x', steps: [] } });
		expect(JSON.stringify(await expectError(broken, 422))).toContain('definition.steps');
		const both = await api(token, 'POST', '/v3/bots/simulate', { botId: 'bot_x', definition: leadBot });
		await expectError(both, 422);
		await expectError(await api(token, 'POST', '/v3/bots/simulate', { botId: 'bot_missing' }), 404);
	});
});

describe('POST /v3/bots/test-integration', () => {
	it('refuses a forbidden address before calling it, and an invalid template', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/bots/test-integration', {
			step: { type: 'integration', method: 'GET', url: 'https://169.254.169.254/{{ path }}' },
			variables: { path: 'latest/meta-data' },
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({ ok: false, error: expect.stringContaining('169.254.169.254') });
		const bad = await api(token, 'POST', '/v3/bots/test-integration', {
			step: { type: 'integration', method: 'GET', url: 'https://api.example.com/{% for %}' },
		});
		await expectError(bad, 422);
	});
});
