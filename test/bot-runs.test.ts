import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
	api,
	expectError,
	reply,
	seedConversation,
	seedOperator,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	visitorSend,
	withTableOffline,
} from './factories';

/**
 * Bots running in the conversation's room: started by their triggers, answered through the widget's public
 * endpoints, their messages going out through the room's write path like any other.
 */

interface Message {
	authorKind: string;
	authorId: string | null;
	text: string;
	interactive: { type: string; buttons?: Array<{ label: string }>; input?: string } | null;
}

interface Run {
	id: string;
	bot: { id: string; version: number };
	trigger: string;
	status: string;
	waitingAt: string | null;
	reason: string | null;
	variables: Record<string, unknown>;
	log: Array<{ stepId: string; input: unknown; output: unknown; error: string | null }>;
}

/** Creates a bot and publishes it: returns its id. */
async function liveBot(token: string, body: Record<string, unknown>): Promise<string> {
	const created = await api(token, 'POST', '/v3/bots', { name: 'Bot', trigger: { kind: 'new_conversation' }, ...body });
	expect(created.status).toBe(201);
	const { id } = (await created.json()) as { id: string };
	expect((await api(token, 'POST', `/v3/bots/${id}/publish`)).status).toBe(200);
	if (!readers.has(token)) {
		const { workspace_id } = (await env.DB.prepare('SELECT workspace_id FROM bots WHERE id = ?').bind(id).first()) as {
			workspace_id: string;
		};
		await addReaders(workspace_id, token);
	}
	return id;
}

/**
 * The tokens a test polls with, in turn: the suite's rate limit is 40 requests a minute per token, and a bot
 * test polls for each step it waits on.
 */
const readers = new Map<string, string[]>();
let turn = 0;

async function addReaders(workspaceId: string, token: string) {
	const more = await Promise.all([1, 2, 3].map(() => seedOperator(workspaceId, ['conversations:read'])));
	readers.set(
		token,
		more.map((r) => r.token),
	);
}

function reader(token: string): string {
	const pool = readers.get(token) ?? [token];
	return pool[turn++ % pool.length] as string;
}

async function messages(token: string, conversationId: string): Promise<Message[]> {
	const res = await api(reader(token), 'GET', `/v3/conversations/${conversationId}/messages?limit=100`);
	return ((await res.json()) as { data: Message[] }).data;
}

const texts = async (token: string, conversationId: string) =>
	(await messages(token, conversationId)).map((m) => m.text);

async function runs(token: string, conversationId: string): Promise<Run[]> {
	const res = await api(reader(token), 'GET', `/v3/conversations/${conversationId}/bot-runs`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Run[] }).data;
}

const poll = { interval: 150 };

const emailBot = {
	start: 'hi',
	steps: [
		{ id: 'hi', type: 'send_message', text: 'Hi! I am the Acme bot.', next: 'email' },
		{
			id: 'email',
			type: 'data_entry',
			prompt: 'Your e-mail?',
			input: 'email',
			variable: 'email',
			validation: { message: 'That is no e-mail. Your e-mail?' },
			next: 'plan',
		},
		{
			id: 'plan',
			type: 'data_entry',
			prompt: 'Which plan?',
			input: 'buttons',
			variable: 'plan',
			choices: [{ label: 'Free' }, { label: 'Pro' }],
			next: 'save',
		},
		{ id: 'save', type: 'update_contact', email: '{{ email }}', next: 'tag' },
		{ id: 'tag', type: 'apply_tag', tag: 'plan-{{ plan | downcase }}', next: 'bye' },
		{ id: 'bye', type: 'end', message: 'Thanks, {{ contact.email }}! {{ plan }} it is.' },
	],
};

describe('a bot started by a new conversation', () => {
	it('greets, re-prompts, takes a button, acts, and ends, each message through the room', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const botId = await liveBot(token, { definition: emailBot, channels: ['widget'] });
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello there');
		await expect
			.poll(() => texts(token, conversationId), poll)
			.toEqual(['Hello there', 'Hi! I am the Acme bot.', 'Your e-mail?']);
		const [, greeting, prompt] = await messages(token, conversationId);
		expect(greeting).toMatchObject({ authorKind: 'bot', authorId: botId, interactive: null });
		expect(prompt?.interactive).toEqual({ type: 'input', input: 'email' });
		expect((await visitorSend(visitor, conversationId, 'not an email', crypto.randomUUID())).status).toBe(201);
		await expect
			.poll(async () => (await texts(token, conversationId)).at(-1), poll)
			.toBe('That is no e-mail. Your e-mail?');
		await visitorSend(visitor, conversationId, 'Ana@Example.com', crypto.randomUUID());
		await expect
			.poll(async () => (await messages(token, conversationId)).at(-1)?.interactive, poll)
			.toEqual({
				type: 'buttons',
				buttons: [{ label: 'Free' }, { label: 'Pro' }],
			});
		await visitorSend(visitor, conversationId, 'pro', crypto.randomUUID());
		await expect
			.poll(async () => (await texts(token, conversationId)).at(-1), poll)
			.toBe('Thanks, ana@example.com! Pro it is.');
		const [run] = await runs(token, conversationId);
		expect(run).toMatchObject({
			bot: { id: botId, version: 1 },
			trigger: 'new_conversation',
			status: 'finished',
			variables: { email: 'ana@example.com', plan: 'Pro' },
		});
		expect(run?.log.map((entry) => [entry.stepId, entry.error])).toEqual([
			['hi', null],
			['email', 'not a valid email'],
			['email', null],
			['plan', null],
			['save', null],
			['tag', null],
			['bye', null],
		]);
		const conversation = (await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
			tags: string[];
		};
		expect(conversation.tags).toEqual(['plan-pro']);
		await expect
			.poll(async () => {
				const { results } = await env.DB.prepare(
					"SELECT type, payload FROM events WHERE workspace_id = ? AND type LIKE 'bot.run_%' ORDER BY occurred_at",
				)
					.bind(workspaceId)
					.all<{ type: string; payload: string }>();
				return results.map((r) => [r.type, JSON.parse(r.payload).status ?? JSON.parse(r.payload).trigger]);
			}, poll)
			.toEqual([
				['bot.run_started', 'new_conversation'],
				['bot.run_ended', 'finished'],
			]);
	});

	it('runs a different bot per channel: the widget’s on widget conversations, the API’s on API ones', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const say = (text: string) => ({ start: 's', steps: [{ id: 's', type: 'end', message: text }] });
		await liveBot(token, { name: 'Widget bot', definition: say('Hello from the widget bot'), channels: ['widget'] });
		await liveBot(token, { name: 'API bot', definition: say('Hello from the API bot'), channels: ['api'] });
		const visitor = await startVisitor(workspaceId);
		const fromWidget = await startVisitorConversation(visitor, 'Hi');
		const res = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'bia@example.com' },
			channel: 'api',
			message: { text: 'Hi from the API', author: 'contact' },
		});
		expect(res.status).toBe(201);
		const fromApi = ((await res.json()) as { id: string }).id;
		await expect.poll(() => texts(token, fromWidget), poll).toEqual(['Hi', 'Hello from the widget bot']);
		await expect.poll(() => texts(token, fromApi), poll).toEqual(['Hi from the API', 'Hello from the API bot']);
		// An operator's first message starts no bot: the customer's does.
		const operatorFirst = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'cid@example.com' },
			channel: 'api',
			message: { text: 'Hello from the team' },
		});
		const quiet = ((await operatorFirst.json()) as { id: string }).id;
		await reply(token, quiet, 'Anyone there?');
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(await runs(token, quiet)).toEqual([]);
	});
});

describe('a message with quick-reply buttons', () => {
	const menuBot = {
		start: 'menu',
		steps: [
			{
				id: 'menu',
				type: 'send_message',
				text: 'Sales or support?',
				buttons: [{ label: 'Sales', next: 'sales' }, { label: 'Suporte técnico', next: 'support' }, 'Other'],
				next: 'other',
			},
			{ id: 'sales', type: 'end', message: 'Sales will write to you.' },
			{ id: 'support', type: 'end', message: 'Support will write to you.' },
			{ id: 'other', type: 'end', message: 'Noted: {{ answer }}' },
		],
	};

	it('waits with its buttons for the visitor, then follows the button chosen or typed', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await liveBot(token, { definition: menuBot, channels: ['widget'] });
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		await expect.poll(() => texts(token, conversationId), poll).toEqual(['Hello', 'Sales or support?']);
		// The run waits at the buttons: nothing comes after them until the visitor chooses.
		await new Promise((resolve) => setTimeout(resolve, 300));
		const shown = await messages(token, conversationId);
		expect(shown.map((m) => m.text)).toEqual(['Hello', 'Sales or support?']);
		expect(shown[1]?.interactive).toEqual({
			type: 'buttons',
			buttons: [{ label: 'Sales' }, { label: 'Suporte técnico' }, { label: 'Other' }],
		});
		expect((await runs(token, conversationId))[0]).toMatchObject({ status: 'waiting', waitingAt: 'menu' });
		// The label typed without its accent is that button's choice.
		await visitorSend(visitor, conversationId, 'suporte tecnico', crypto.randomUUID());
		await expect.poll(async () => (await texts(token, conversationId)).at(-1), poll).toBe('Support will write to you.');
		expect((await runs(token, conversationId))[0]).toMatchObject({
			status: 'finished',
			variables: { answer: 'Suporte técnico' },
		});

		const other = await startVisitorConversation(visitor, 'Hello again');
		await expect.poll(async () => (await texts(token, other)).at(-1), poll).toBe('Sales or support?');
		await visitorSend(visitor, other, 'I want a refund', crypto.randomUUID());
		await expect.poll(async () => (await texts(token, other)).at(-1), poll).toBe('Noted: I want a refund');
	});
});

describe('keyword and manual starts', () => {
	it('starts a keyword bot on a later message holding the word, ignoring case and accents', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await liveBot(token, {
			trigger: { kind: 'keyword', keywords: ['preço', 'pricing'] },
			definition: { start: 'p', steps: [{ id: 'p', type: 'end', message: 'Plans start at R$ 49.' }] },
		});
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		await visitorSend(visitor, conversationId, 'qual o PRECO?', crypto.randomUUID());
		await expect
			.poll(() => texts(token, conversationId), poll)
			.toEqual(['Hello', 'qual o PRECO?', 'Plans start at R$ 49.']);
		const [run] = await runs(token, conversationId);
		expect(run).toMatchObject({ trigger: 'keyword', status: 'finished' });
		// Where a person of the team has written, the keyword starts nothing: the visitor is talking to them.
		const other = await startVisitorConversation(visitor, 'Hello again');
		await reply(token, other, 'Hi! Bia here.');
		await visitorSend(visitor, other, 'And the pricing?', crypto.randomUUID());
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(await texts(token, other)).toEqual(['Hello again', 'Hi! Bia here.', 'And the pricing?']);
		expect(await runs(token, other)).toEqual([]);
	});

	it('lets an operator start a published bot, refuses a second while it runs, and stops it when a person writes', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const botId = await liveBot(token, { trigger: { kind: 'manual' }, definition: emailBot });
		const draftOnly = (await (
			await api(token, 'POST', '/v3/bots', { name: 'Draft', trigger: { kind: 'manual' }, definition: emailBot })
		).json()) as { id: string };
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		// A manual bot has no trigger of its own: the first message started nothing.
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(await runs(token, conversationId)).toEqual([]);
		const agent = await seedOperator(workspaceId, ['messages:send']);
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(reader.token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId }), 403);
		await expectError(
			await api(agent.token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId: draftOnly.id }),
			409,
		);
		const started = await api(agent.token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId });
		expect(started.status).toBe(201);
		const { runId } = (await started.json()) as { runId: string };
		await expect.poll(async () => (await texts(token, conversationId)).at(-1), poll).toBe('Your e-mail?');
		await expectError(await api(agent.token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId }), 409);
		await reply(agent.token, conversationId, 'Hi, Bia from sales here.');
		await expect.poll(async () => (await runs(token, conversationId))[0]?.status, poll).toBe('stopped');
		const [run] = await runs(token, conversationId);
		expect(run).toMatchObject({ id: runId, trigger: 'manual', reason: 'an operator took over' });
		// The visitor's answer now goes to the person, not to a bot.
		await visitorSend(visitor, conversationId, 'ana@example.com', crypto.randomUUID());
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect((await texts(token, conversationId)).at(-1)).toBe('ana@example.com');
		await expectError(await api(agent.token, 'POST', '/v3/conversations/conv_nope/bot', { botId }), 404);
		// A disabled bot starts neither by its trigger nor by hand.
		await api(token, 'PATCH', `/v3/bots/${botId}`, { enabled: false });
		const disabled = await api(agent.token, 'POST', `/v3/conversations/${conversationId}/bot`, { botId });
		expect((await expectError(disabled, 409)).message).toContain('disabled');
	});
});

describe('delays, errors and handoffs', () => {
	it('waits out a Delay on the room alarm, and a reply cancels one set to cancel on reply', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await liveBot(token, {
			definition: {
				start: 'wait',
				steps: [
					{ id: 'wait', type: 'delay', seconds: 1, next: 'ask' },
					{ id: 'ask', type: 'send_message', text: 'Still there?', next: 'nudge' },
					{ id: 'nudge', type: 'delay', seconds: 3600, cancelOnReply: true, next: 'thanks' },
					{ id: 'thanks', type: 'end', message: 'You said: {{ answer }}' },
				],
			},
		});
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(await texts(token, conversationId)).toEqual(['Hello']);
		await expect
			.poll(() => texts(token, conversationId), { interval: 200, timeout: 10_000 })
			.toEqual(['Hello', 'Still there?']);
		expect((await runs(token, conversationId))[0]).toMatchObject({ status: 'waiting', waitingAt: 'nudge' });
		await visitorSend(visitor, conversationId, 'yes!', crypto.randomUUID());
		await expect.poll(async () => (await texts(token, conversationId)).at(-1), poll).toBe('You said: yes!');
		expect((await runs(token, conversationId))[0]?.status).toBe('finished');
	});

	it('takes an integration’s error path, and a transfer leaves the conversation unassigned for a person', async () => {
		const { workspaceId, token, operatorId } = await seedWorkspace();
		await liveBot(token, {
			definition: {
				start: 'assign',
				steps: [
					{ id: 'assign', type: 'assign', operatorId, next: 'lookup' },
					{
						id: 'lookup',
						type: 'integration',
						method: 'GET',
						url: 'https://169.254.169.254/latest/meta-data/',
						next: 'found',
						onError: 'sorry',
					},
					{ id: 'found', type: 'end', message: 'Found it.' },
					{ id: 'sorry', type: 'transfer', message: 'I could not look that up; a person will help.' },
				],
			},
		});
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Where is my order?');
		await expect
			.poll(async () => (await texts(token, conversationId)).at(-1), poll)
			.toBe('I could not look that up; a person will help.');
		await expect.poll(async () => (await runs(token, conversationId))[0]?.status, poll).toBe('transferred');
		const [run] = await runs(token, conversationId);
		expect(run?.log.find((entry) => entry.stepId === 'lookup')?.error).toMatch(/169\.254\.169\.254/);
		const conversation = (await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
			assigneeId: string | null;
			status: string;
		};
		expect(conversation).toMatchObject({ assigneeId: null, status: 'open' });
	});

	it('keeps a run on the version it started with when a new one is published', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const botId = await liveBot(token, { definition: emailBot });
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		await expect.poll(async () => (await texts(token, conversationId)).at(-1), poll).toBe('Your e-mail?');
		const changed = structuredClone(emailBot);
		(changed.steps[5] as { message: string }).message = 'Version two says bye.';
		expect((await api(token, 'PATCH', `/v3/bots/${botId}`, { definition: changed })).status).toBe(200);
		const published = await api(token, 'POST', `/v3/bots/${botId}/publish`);
		expect(await published.json()).toMatchObject({ publishedVersion: 2 });
		await visitorSend(visitor, conversationId, 'ana@example.com', crypto.randomUUID());
		await expect.poll(async () => (await texts(token, conversationId)).at(-1), poll).toBe('Which plan?');
		await visitorSend(visitor, conversationId, 'Free', crypto.randomUUID());
		await expect
			.poll(async () => (await texts(token, conversationId)).at(-1), poll)
			.toBe('Thanks, ana@example.com! Free it is.');
		expect((await runs(token, conversationId))[0]?.bot.version).toBe(1);
	});
});

describe('the deal-stage trigger', () => {
	it("runs in the contact's open conversation when its deal enters the stage, or opens one on the widget", async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Qualified'] });
		await liveBot(token, {
			trigger: { kind: 'deal_stage', funnel: 'Sales', stage: 'Qualified' },
			definition: {
				start: 's',
				steps: [{ id: 's', type: 'end', message: 'Hi {{ contact.name | default: "there" }}, your proposal is ready.' }],
			},
		});
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		const { contactId } = (await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
			contactId: string;
		};
		const deal = (await (
			await api(token, 'POST', '/v3/deals', { funnel: 'Sales', name: 'Visitor deal', contactId })
		).json()) as { id: string };
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(await texts(token, conversationId)).toEqual(['Hello']);
		expect((await api(token, 'PATCH', `/v3/deals/${deal.id}`, { stage: 'Qualified' })).status).toBe(200);
		await expect
			.poll(() => texts(token, conversationId), { interval: 250 })
			.toEqual(['Hello', 'Hi there, your proposal is ready.']);
		expect((await runs(token, conversationId))[0]).toMatchObject({ trigger: 'deal_stage', status: 'finished' });

		const contact = (await (
			await api(token, 'POST', '/v3/contacts', { name: 'Caio', email: 'caio@example.com' })
		).json()) as {
			id: string;
		};
		await api(token, 'POST', '/v3/deals', {
			funnel: 'Sales',
			stage: 'Qualified',
			name: 'Caio deal',
			contactId: contact.id,
		});
		const opened = async () =>
			(
				await env.DB.prepare(
					"SELECT id FROM conversations WHERE workspace_id = ? AND contact_id = ? AND channel = 'widget'",
				)
					.bind(workspaceId, contact.id)
					.all<{ id: string }>()
			).results.map((r) => r.id);
		await expect.poll(opened, { interval: 250 }).toHaveLength(1);
		const [newConversation] = await opened();
		await expect
			.poll(() => texts(token, newConversation as string), { interval: 250 })
			.toEqual(['Hi Caio, your proposal is ready.']);
	});

	it('passes to the next bot of the stage when the best one has nowhere to run', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] });
		const say = (text: string) => ({ start: 's', steps: [{ id: 's', type: 'end', message: text }] });
		// The best bot runs on API conversations only, and the contact has none: it cannot run.
		await liveBot(token, {
			trigger: { kind: 'deal_stage', funnel: 'Sales', stage: 'Won' },
			channels: ['api'],
			priority: 900,
			definition: say('From the API bot'),
		});
		await liveBot(token, {
			trigger: { kind: 'deal_stage', funnel: 'Sales', stage: 'Won' },
			definition: say('From the widget bot'),
		});
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hello');
		const { contactId } = (await (await api(token, 'GET', `/v3/conversations/${conversationId}`)).json()) as {
			contactId: string;
		};
		await api(token, 'POST', '/v3/deals', { funnel: 'Sales', stage: 'Won', name: 'Deal', contactId });
		await expect.poll(() => texts(token, conversationId), { interval: 250 }).toEqual(['Hello', 'From the widget bot']);
	});
});

describe('a room that comes back from D1', () => {
	it('takes its history as read: an old first message starts no bot when the room is rebuilt', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await liveBot(token, {
			definition: { start: 'hi', steps: [{ id: 'hi', type: 'end', message: 'Hello from the bot' }] },
		});
		// A conversation whose messages are in D1 only: its room is built from them on first use.
		const conversationId = await seedConversation(workspaceId, { lastMessageSeq: 1 });
		await env.DB.prepare(
			"INSERT INTO messages (id, workspace_id, conversation_id, seq, author_kind, author_id, body, attachments, created_at) VALUES (?, ?, ?, 1, 'contact', NULL, 'An old question', '[]', ?)",
		)
			.bind(`msg_old_${conversationId}`, workspaceId, conversationId, Date.now() - 60_000)
			.run();
		await reply(token, conversationId, 'Sorry for the wait!');
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(await texts(token, conversationId)).toEqual(['An old question', 'Sorry for the wait!']);
		expect(await runs(token, conversationId)).toEqual([]);
	});
});

describe('a bot whose effect keeps failing', () => {
	it('is given up as failed after a few tries, so the room’s bots go on', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New'] });
		await liveBot(token, {
			definition: {
				start: 'deal',
				steps: [
					{ id: 'deal', type: 'create_deal', funnel: 'Sales', name: 'Lead', next: 'done' },
					{ id: 'done', type: 'end', message: 'Deal created.' },
				],
			},
		});
		const visitor = await startVisitor(workspaceId);
		// The deals table is gone (D1 failing on it): the action throws, which no error path handles.
		const conversationId = await withTableOffline('deals', async () => {
			const id = await startVisitorConversation(visitor, 'Hi');
			const room = env.CONVERSATION_ROOM.getByName(id);
			await expect.poll(async () => (await runs(token, id))[0]?.status, { interval: 100 }).toBe('waiting');
			// The watchdog's retries, one after another.
			for (let i = 0; i < 5; i++) {
				await runInDurableObject(room, (instance) =>
					(instance as unknown as { bot: { kick(): Promise<void> } }).bot.kick().catch(() => undefined),
				);
			}
			return id;
		});
		const [run] = await runs(token, conversationId);
		expect(run).toMatchObject({ status: 'failed', reason: expect.stringContaining('an effect kept failing') });
		// Nothing is left to perform: a later look goes straight to the new messages.
		await visitorSend(visitor, conversationId, 'Anyone?', crypto.randomUUID());
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(await texts(token, conversationId)).toEqual(['Hi', 'Anyone?']);
	});
});
