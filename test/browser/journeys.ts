// The widget's essential journeys, described once and run in each engine (widget-engines-*.test.ts): what a
// visitor does on a customer's site and what they and the team see, through the page interface of engines.ts
// and the readers of journey-kit.ts; this file holds the chat's, journeys-site.ts those about the site around
// it. Each journey has a seeded workspace of its own per engine (engines share one `wrangler dev` per shard and
// their order changes), so counting a workspace's conversations counts the journey's own.
import { describe, expect, it } from 'vitest';
import { ENGINE_LABELS, type EngineName, missing } from './engines';
import { api, rgb, signJwt } from './harness';
import {
	attribute,
	count,
	engineHooks,
	events,
	IN_WIDGET,
	type Journey,
	KEEP_SOCKETS,
	kw,
	layout,
	logText,
	onlyConversation,
	openChat,
	reply,
	send,
	shown,
	text,
	texts,
} from './journey-kit';
import { SITE_JOURNEYS } from './journeys-site';
import { baseUrl, conversation, conversations, messageTexts, putSettings } from './widget-page';

/** The seeded workspaces the journeys use: 148 onwards, a block of 16 per engine (global-setup.ts seeds them). */
const FIRST_WORKSPACE = 148;
const WORKSPACES_PER_ENGINE = 16;
const ENGINE_ORDER: EngineName[] = ['chromium', 'webkit', 'firefox'];

/** What happens in the chat, from the calls a page queues to a bot's last step. */
const CHAT_JOURNEYS: Journey[] = [
	{
		name: 'runs the calls the snippet queued before widget.js loaded, in order',
		async run(j) {
			await j.visit({
				ready: false,
				script: `kw('on','open',function(){__events.push('open')});kw('on','close',function(){__events.push('close')});
					kw('open');kw('close');kw('open',{message:'queued text'});__events.push('parsed');`,
			});
			await expect.poll(() => shown(j.page, '.panel')).toBe(true);
			expect(await events(j.page)).toEqual(['parsed', 'open', 'close', 'open']);
			expect(await attribute(j.page, '.composer textarea', '.value')).toBe('queued text');
			expect(await j.page.run('return window.__ready===true')).toBe(true);
		},
	},
	{
		name: 'shows the launcher in its corner in the workspace colours, with its call to action',
		async run(j) {
			await j.visit({ init: { primaryColor: '#aa0000', ctaText: 'Questions? Ask us', welcomeMessage: 'Hello there' } });
			await expect
				.poll(() => layout(j.page, '.launcher'))
				.toMatchObject({
					position: 'fixed',
					width: 56,
					fromRight: 20,
					fromBottom: 20,
					background: rgb('#aa0000'),
				});
			expect(await attribute(j.page, '.launcher', 'aria-label')).toBe('Chat with Support');
			expect(await text(j.page, '.cta .greet')).toBe('Hello there');
			expect(await text(j.page, '.cta .act')).toBe('Questions? Ask us');
			expect(await shown(j.page, '.cta')).toBe(true);
			await openChat(j.page);
			expect(await logText(j.page)).toContain('Hello there');
			// Opening once hides the call to action.
			expect(await shown(j.page, '.cta')).toBe(false);
		},
	},
	{
		name: 'opens, closes and toggles from commands and the launcher; open with a message only pre-fills it',
		async run(j) {
			await j.visit({
				script:
					"kw('on','open',function(){__events.push('open')});kw('on','close',function(){__events.push('close')});",
			});
			expect(await shown(j.page, '.panel')).toBe(false);
			await kw(j.page, 'open');
			await expect.poll(() => shown(j.page, '.panel')).toBe(true);
			await kw(j.page, 'close');
			await expect.poll(() => shown(j.page, '.panel')).toBe(false);
			await kw(j.page, 'toggle');
			await expect.poll(() => shown(j.page, '.panel')).toBe(true);
			await j.page.click('.launcher');
			await expect.poll(() => shown(j.page, '.panel')).toBe(false);
			await kw(j.page, 'open', { message: 'Is the tent in stock?' });
			await expect.poll(() => attribute(j.page, '.composer textarea', '.value')).toBe('Is the tent in stock?');
			expect(await events(j.page)).toEqual(['open', 'close', 'open', 'close', 'open']);
			// Give a send every chance to go out before checking that none did.
			await j.page.run('return new Promise(function(resolve){setTimeout(resolve,500)})');
			expect(await conversations(j.token)).toEqual([]);
		},
	},
	{
		name: 'asks the pre-chat fields, checks them in the browser, and the contact gets them',
		async run(j) {
			await putSettings(j.token, { requiredFields: ['name', 'email'] });
			await j.visit();
			await openChat(j.page);
			await send(j.page, 'My order is late');
			await expect.poll(() => texts(j.page, '.fields .error')).toEqual(['Required', 'Required']);
			await j.page.type('input[name=name]', 'Bea');
			await j.page.type('input[name=email]', 'bea@');
			await j.page.click('.composer button[type=submit]');
			await expect.poll(() => attribute(j.page, 'input[name=email]', 'aria-invalid')).toBe('true');
			expect(await conversations(j.token)).toEqual([]);
			await j.page.type('input[name=email]', 'example.com');
			await j.page.click('.composer button[type=submit]');
			const id = await onlyConversation(j.token);
			expect((await conversation(j.token, id)).contact).toMatchObject({ name: 'Bea', claimedEmail: 'bea@example.com' });
			await expect.poll(() => count(j.page, '.fields')).toBe(0);
			expect(await messageTexts(j.token, id)).toEqual(['My order is late']);
		},
	},
	{
		name: "sends the visitor's message and shows the operator's reply live, once each",
		async run(j) {
			await j.visit({
				script:
					"kw('on','conversation_started',function(c){__events.push('started:'+c.id)});kw('on','message',function(m){__events.push('message:'+m.text)});",
			});
			await openChat(j.page);
			await send(j.page, 'Hello, do you ship to Lisbon?');
			const id = await onlyConversation(j.token);
			await expect.poll(() => messageTexts(j.token, id)).toEqual(['Hello, do you ship to Lisbon?']);
			await expect.poll(() => events(j.page)).toEqual([`started:${id}`, 'message:Hello, do you ship to Lisbon?']);
			await reply(j.token, id, 'We do, in *two* days.');
			await expect.poll(() => logText(j.page)).toContain('We do, in two days.');
			expect(await text(j.page, '.msg.team strong')).toBe('two');
			expect((await logText(j.page)).match(/do you ship to Lisbon/g)).toHaveLength(1);
			// The page's storage keeps the visitor and the conversation across a reload.
			await j.page.reload();
			await expect.poll(() => j.page.run('return window.__ready===true'), { timeout: 15_000 }).toBe(true);
			await openChat(j.page);
			await expect.poll(() => logText(j.page)).toContain('We do, in two days.');
			expect(await logText(j.page)).toContain('Hello, do you ship to Lisbon?');
			expect(await conversations(j.token)).toHaveLength(1);
		},
	},
	{
		name: "shows the team typing, sends the visitor's typing, and clears unread replies when read",
		async run(j) {
			await j.visit();
			await openChat(j.page);
			await send(j.page, 'Typing test');
			await expect.poll(() => count(j.page, '.msg.mine.sent')).toBe(1);
			const id = await onlyConversation(j.token);
			const operator = new WebSocket(`${baseUrl.replace('http', 'ws')}/v3/conversations/${id}/live`, [
				'parley.v1',
				`bearer.${j.token}`,
			]);
			try {
				const frames: { type: string; author?: string; typing?: boolean }[] = [];
				operator.onmessage = (event) => frames.push(JSON.parse(String(event.data)));
				await expect.poll(() => frames.some((f) => f.type === 'synced')).toBe(true);
				operator.send(JSON.stringify({ type: 'typing', typing: true }));
				await expect.poll(() => text(j.page, '.typing')).toBe('Support is typing…');
				await j.page.type('.composer textarea', 'hel');
				await expect
					.poll(() => frames.find((f) => f.type === 'typing'))
					.toMatchObject({ author: 'contact', typing: true });
			} finally {
				operator.close();
			}
			// Closed, the chat counts the replies on the launcher; opened, it reads them and tells the Worker.
			await j.page.click('.launcher');
			await expect.poll(() => shown(j.page, '.panel')).toBe(false);
			await reply(j.token, id, 'Yes!');
			await reply(j.token, id, 'How can I help?');
			await expect.poll(() => text(j.page, '.badge')).toBe('2');
			expect(await attribute(j.page, '.launcher', 'aria-label')).toContain('2 unread messages');
			await openChat(j.page);
			await expect.poll(() => count(j.page, '.badge')).toBe(0);
			await expect.poll(async () => (await conversation(j.token, id)).unreadByContact).toBe(0);
		},
	},
	{
		name: 'fills the gap after its socket drops: replies sent meanwhile show once, in order',
		async run(j) {
			await j.visit({ head: KEEP_SOCKETS });
			await openChat(j.page);
			await send(j.page, 'Before the drop');
			await expect.poll(() => count(j.page, '.msg.mine.sent')).toBe(1);
			const id = await onlyConversation(j.token);
			const lastSocketState = 'var s=window.__sockets[window.__sockets.length-1];return s?s.readyState:-1';
			await expect.poll(() => j.page.run(lastSocketState)).toBe(1);
			await j.page.click('.launcher');
			await j.page.run('window.__sockets[window.__sockets.length-1].close()');
			await reply(j.token, id, 'During 1');
			await reply(j.token, id, 'During 2');
			await expect.poll(() => text(j.page, '.badge'), { timeout: 15_000 }).toBe('2');
			// The new socket asked for what came after the last message the widget had.
			expect(
				await j.page.run<string[]>(
					"return window.__sockets.map(function(s){return new URL(s.url).searchParams.get('after')})",
				),
			).toEqual(['0', '1']);
			await openChat(j.page);
			const shownTexts = await texts(j.page, '.msg .body');
			expect(shownTexts.filter((t) => t.startsWith('During'))).toEqual(['During 1', 'During 2']);
		},
	},
	{
		name: "follows a bot's buttons and a typed data-entry answer to its end",
		async run(j) {
			const created = await api(baseUrl, j.token, 'POST', '/v3/bots', {
				name: 'Shop assistant',
				trigger: { kind: 'new_conversation' },
				channels: ['widget'],
				definition: {
					start: 'pick',
					steps: [
						{
							id: 'pick',
							type: 'data_entry',
							prompt: 'What are you shopping for?',
							input: 'buttons',
							variable: 'product',
							choices: [{ label: 'Tent' }, { label: 'Stove' }],
							next: 'email',
						},
						{
							id: 'email',
							type: 'data_entry',
							prompt: 'Your e-mail for the quote?',
							input: 'email',
							variable: 'email',
							validation: { message: 'That is no e-mail: try name@company.com' },
							next: 'bye',
						},
						{ id: 'bye', type: 'end', message: 'Thanks! A {{ product }} quote goes to {{ email }}.' },
					],
				},
			});
			expect(created.status, JSON.stringify(created.body)).toBe(201);
			const botId = (created.body as { id: string }).id;
			expect((await api(baseUrl, j.token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);
			await j.visit();
			await openChat(j.page);
			await send(j.page, 'Hi there');
			await expect.poll(() => texts(j.page, '.choices button'), { timeout: 15_000 }).toEqual(['Tent', 'Stove']);
			await j.page.click('.choices button', 1);
			await expect.poll(() => count(j.page, '.composer input[type=email]'), { timeout: 15_000 }).toBe(1);
			await send(j.page, 'not-an-email', '.composer input[type=email]');
			// Refused in the bot's own words; the field is emptied by the page's script, as select-all would.
			await expect
				.poll(async () => (await texts(j.page, '.msg.team .body')).at(-1), { timeout: 15_000 })
				.toBe('That is no e-mail: try name@company.com');
			await j.page.run(`${IN_WIDGET}root.querySelector('.composer input[type=email]').value=''`);
			await send(j.page, 'ana@example.com', '.composer input[type=email]');
			await expect
				.poll(() => logText(j.page), { timeout: 15_000 })
				.toContain('Thanks! A Stove quote goes to ana@example.com.');
		},
	},
	{
		name: "makes the visitor the verified contact from the site's signed identity",
		async run(j) {
			const { status, body } = await api(baseUrl, j.token, 'POST', '/v3/widget/identity-secret');
			expect(status).toBe(200);
			const jwt = signJwt((body as { secret: string }).secret, {
				email: 'ana@example.com',
				external_id: 'user-42',
				name: 'Ana Souza',
				exp: Math.floor(Date.now() / 1000) + 600,
			});
			await j.visit({ script: `kw('identify',{jwt:${JSON.stringify(jwt)}});` });
			await openChat(j.page);
			await send(j.page, 'Where is my order?');
			const id = await onlyConversation(j.token);
			const { contact } = await conversation(j.token, id);
			expect(contact).toMatchObject({
				email: 'ana@example.com',
				name: 'Ana Souza',
				verified: true,
				externalId: 'user-42',
			});
		},
	},
];

/** Every journey, in the order each engine runs them. */
export const JOURNEYS: Journey[] = [...CHAT_JOURNEYS, ...SITE_JOURNEYS];

/**
 * The journeys as one `describe` for `engine`: skipped, saying why, where the engine is not installed (failed
 * instead under REQUIRE_ENGINES). One browser for the file, a new visitor for each journey (engines.ts).
 */
export function journeysIn(engine: EngineName): void {
	const absent = missing(engine);
	const label = ENGINE_LABELS[engine];
	// CI installs every engine and sets REQUIRE_ENGINES: there a missing one fails instead of being skipped.
	if (absent && process.env.REQUIRE_ENGINES) {
		it(`the widget in ${label}`, () => {
			throw new Error(`REQUIRE_ENGINES is set but ${label} cannot run: ${absent}.`);
		});
		return;
	}
	if (absent) console.warn(`The widget's journeys in ${label} are skipped: ${absent}.`);
	describe.skipIf(absent !== undefined)(`the widget in ${label}`, () => {
		const journeyContext = engineHooks(engine);
		const block = FIRST_WORKSPACE + ENGINE_ORDER.indexOf(engine) * WORKSPACES_PER_ENGINE;
		JOURNEYS.forEach((journey, index) => {
			it(journey.name, async () => {
				const j = await journeyContext(block + index, journey.viewport);
				try {
					await journey.run(j);
				} finally {
					await j.close();
				}
			});
		});
	});
}
