// The widget's essential journeys, described once and run in each engine (widget-engines-*.test.ts): what a
// visitor does on a customer's site and what they and the team see, through the small page interface of
// engines.ts. Each journey has a seeded workspace of its own per engine (engines share one `wrangler dev` per
// shard and their order changes), so counting a workspace's conversations counts the journey's own.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_LABELS, type Engine, type EngineName, type EnginePage, launchEngine, missing } from './engines';
import { api, snippetHtml, workspace } from './harness';
import { type HostPage, type HostSite, startHostSite } from './host-site';
import { baseUrl, conversation, conversations, messageTexts, putSettings } from './widget-page';

/** The seeded workspaces the journeys use: 148 onwards, a block of 16 per engine (global-setup.ts seeds them). */
const FIRST_WORKSPACE = 148;
const WORKSPACES_PER_ENGINE = 16;
const ENGINE_ORDER: EngineName[] = ['chromium', 'webkit', 'firefox'];

interface Journey {
	name: string;
	/** The viewport, when the journey needs one of its own (the mobile one). */
	viewport?: { width: number; height: number };
	run(j: JourneyContext): Promise<void>;
}

export interface JourneyContext {
	engine: EngineName;
	page: EnginePage;
	workspaceId: string;
	token: string;
	/** Puts a page with the widget on the customer's site and opens it; see `sitePage`. */
	visit(options?: SitePageOptions): Promise<void>;
}

interface SitePageOptions {
	/** More `kw('init')` options, as a site owner edits the snippet. */
	init?: Record<string, unknown>;
	/** Runs right after the snippet: its `kw` calls are queued until widget.js has loaded. */
	script?: string;
	/** Goes first in the page's <head>, before anything of the widget. */
	head?: string;
	/** Added to the page's address (a path, a query). */
	path?: string;
	/** The page's response headers. */
	headers?: Record<string, string>;
	/** Files of the site beside the page, by name (`site.js`), for the page to load by a relative address. */
	files?: HostPage['files'];
	/** Replaces the whole page (the snippet included). */
	html?: string;
	/** Wait for the widget's `ready` event (default true). */
	ready?: boolean;
}

/** The page of a site that embeds the real snippet, with `__events` for the journey's listeners. */
function sitePage(workspaceId: string, options: SitePageOptions): string {
	const script = `window.__events=[];kw('on','ready',function(){window.__ready=true});${options.script ?? ''}`;
	const snippetInit = `kw('init',{workspaceId:${JSON.stringify(workspaceId)}})`;
	return snippetHtml(baseUrl, workspaceId, script)
		.replace(snippetInit, `kw('init',${JSON.stringify({ workspaceId, ...options.init })})`)
		.replace('<title>', `${options.head ?? ''}<title>`);
}

// What the journeys read in the page: small scripts over the widget's shadow root.
const IN_WIDGET = "var root=document.querySelector('parley-widget');root=root&&root.shadowRoot;";

/** How many elements match `selector` in the widget. */
const count = (page: EnginePage, selector: string) =>
	page.run<number>(`${IN_WIDGET}return root?root.querySelectorAll(arguments[0]).length:0`, selector);

/** The text of the first element matching `selector` in the widget, or null. */
const text = (page: EnginePage, selector: string) =>
	page.run<string | null>(
		`${IN_WIDGET}var e=root&&root.querySelector(arguments[0]);return e?e.textContent:null`,
		selector,
	);

/** The texts of every element matching `selector` in the widget. */
const texts = (page: EnginePage, selector: string) =>
	page.run<string[]>(
		`${IN_WIDGET}return root?Array.from(root.querySelectorAll(arguments[0]),function(e){return e.textContent}):[]`,
		selector,
	);

/** An attribute (or, with `.name`, a property) of the first element matching `selector`. */
const attribute = (page: EnginePage, selector: string, name: string) =>
	page.run<string | null>(
		`${IN_WIDGET}var e=root&&root.querySelector(arguments[0]);if(!e)return null;var n=arguments[1];return n[0]==='.'?e[n.slice(1)]:e.getAttribute(n)`,
		selector,
		name,
	);

/** Whether the first element matching `selector` is shown (laid out, not hidden). */
const shown = (page: EnginePage, selector: string) =>
	page.run<boolean>(
		`${IN_WIDGET}var e=root&&root.querySelector(arguments[0]);return !!e&&e.getClientRects().length>0&&getComputedStyle(e).visibility!=='hidden'`,
		selector,
	);

/** Where the element sits in the viewport, its colours and position style. */
const layout = (page: EnginePage, selector: string) =>
	page.run<{
		left: number;
		top: number;
		width: number;
		height: number;
		fromRight: number;
		fromBottom: number;
		position: string;
		background: string;
		viewport: { width: number; height: number };
	} | null>(
		`${IN_WIDGET}var e=root&&root.querySelector(arguments[0]);if(!e)return null;var b=e.getBoundingClientRect(),s=getComputedStyle(e),d=document.documentElement;
		return {left:Math.round(b.left),top:Math.round(b.top),width:Math.round(b.width),height:Math.round(b.height),
		fromRight:Math.round(d.clientWidth-b.right),fromBottom:Math.round(d.clientHeight-b.bottom),position:s.position,
		background:s.backgroundColor,viewport:{width:d.clientWidth,height:d.clientHeight}}`,
		selector,
	);

/** What has the focus: `tag.class` inside the widget, or the page element's tag. */
const focused = (page: EnginePage) =>
	page.run<string>(
		"var a=document.activeElement,i=a&&a.shadowRoot&&a.shadowRoot.activeElement;return i?i.tagName.toLowerCase()+'.'+i.className:(a?a.tagName.toLowerCase():'')",
	);

const events = (page: EnginePage) => page.run<unknown[]>('return window.__events');
const kw = (page: EnginePage, ...args: unknown[]) => page.run<void>('window.kw.apply(null, arguments)', ...args);

/** The chat's log as text. */
export const logText = async (page: EnginePage) => (await text(page, '.log')) ?? '';

/** Sends `message` from the composer's `field` (the chat must be open), as the visitor types it. */
export async function send(page: EnginePage, message: string, field = '.composer textarea') {
	await page.type(field, message);
	await page.keyboard('Enter');
}

export async function openChat(page: EnginePage) {
	await page.click('.launcher');
	await expect.poll(() => shown(page, '.panel')).toBe(true);
}

/** The workspace's only conversation, once the API lists it. */
async function onlyConversation(token: string): Promise<string> {
	await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBe(1);
	return (await conversations(token))[0]?.id as string;
}

export async function reply(token: string, conversationId: string, message: string) {
	const { status, body } = await api(baseUrl, token, 'POST', '/v3/messages', { conversationId, text: message });
	expect(status, JSON.stringify(body)).toBe(201);
}

/** `#rrggbb` as getComputedStyle reports it. */
function rgb(hex: string): string {
	const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
	return `rgb(${r}, ${g}, ${b})`;
}

/** An HS256 JWT as a site's backend signs it for identity verification. */
function signJwt(secret: string, claims: object): string {
	const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
	const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
	return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/**
 * Business hours from an hour before now to an hour after, on today's weekday, in a zone with a half-hour
 * offset whose day is not about to turn (India's, or Newfoundland's nine hours behind it), as Node's Intl sees it.
 */
function hoursAroundNow(): { timeZone: string; weekday: string; start: string; end: string } {
	const hhmm = (minutes: number) =>
		`${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
	for (const timeZone of ['Asia/Kolkata', 'America/St_Johns']) {
		const parts = new Intl.DateTimeFormat('en-US', {
			timeZone,
			weekday: 'short',
			hour: '2-digit',
			minute: '2-digit',
			hourCycle: 'h23',
		}).formatToParts(new Date());
		const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
		const minutes = Number(part('hour')) * 60 + Number(part('minute'));
		if (minutes >= 90 && minutes <= 22 * 60) {
			return { timeZone, weekday: part('weekday').toLowerCase(), start: hhmm(minutes - 60), end: hhmm(minutes + 60) };
		}
	}
	throw new Error('unreachable: the two zones are nine hours apart');
}

/** Before the snippet: keeps the page's sockets, so a journey can cut the widget's as a network drop would. */
const KEEP_SOCKETS = `<script>(function(){var Native=WebSocket,kept=[];window.__sockets=kept;
window.WebSocket=function(url,protocols){var s=protocols===undefined?new Native(url):new Native(url,protocols);kept.push(s);return s};
window.WebSocket.prototype=Native.prototype;['CONNECTING','OPEN','CLOSING','CLOSED'].forEach(function(k){window.WebSocket[k]=Native[k]});})();</script>`;

/**
 * Issue 39's strict policy: `scripts` beside the widget's origin, the widget's origin for its API, socket,
 * images and styles, nothing inline for styles, nothing evaluated, Trusted Types for every script sink. The
 * site's own origin for its images too (Firefox and WebKit ask for its /favicon.ico).
 */
function strictPolicy(scripts: string): string {
	return [
		"default-src 'self'",
		`script-src ${scripts} ${baseUrl}`,
		`connect-src ${baseUrl} ${baseUrl.replace(/^http/, 'ws')}`,
		`img-src 'self' ${baseUrl} data:`,
		`style-src 'self' ${baseUrl}`,
		"require-trusted-types-for 'script'",
	].join('; ');
}

/** First in the page: counts the policy's refusals, reported where they happen and bubbling to the document. */
const WATCH_VIOLATIONS = `<script>window.__violations=[];document.addEventListener('securitypolicyviolation',function(e){__violations.push(e.effectiveDirective+' refused '+(e.blockedURI||'inline'))},true);</script>`;

/** What a strict page must still allow: the launcher in its corner and colour, a message and the reply; no refusal. */
async function chatsUnderPolicy(j: JourneyContext, primaryColor: string) {
	await expect
		.poll(() => layout(j.page, '.launcher'), { timeout: 15_000 })
		.toMatchObject({
			position: 'fixed',
			width: 56,
			fromRight: 20,
			fromBottom: 20,
			background: rgb(primaryColor),
		});
	await openChat(j.page);
	await send(j.page, 'Can I pay by bank transfer?');
	const id = await onlyConversation(j.token);
	await reply(j.token, id, 'Yes, any day.');
	await expect.poll(() => logText(j.page)).toContain('Yes, any day.');
	expect(await j.page.run('return window.__violations')).toEqual([]);
}

export const JOURNEYS: Journey[] = [
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
	{
		name: "follows business hours in the schedule's time zone: online inside them, away outside, asking for an e-mail",
		async run(j) {
			// Computed in the visitor's browser with Intl: an hour either side of now, today only, in a zone half
			// an hour off the machine's, so an engine that got the zone, the weekday or the minutes wrong says away.
			const { timeZone, weekday, start, end } = hoursAroundNow();
			const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
			const periodMessages = {
				inHours: 'We answer within minutes.',
				outOfHours: 'We are away; we answer by e-mail.',
				weekend: 'We are away; we answer by e-mail.',
			};
			await putSettings(j.token, {
				businessHours: { enabled: true, timeZone, weekly: { ...week, [weekday]: [{ start, end }] }, holidays: [] },
				periodMessages,
			});
			await j.visit();
			expect(await attribute(j.page, '.launcher', 'aria-label')).toBe('Chat with Support, Online');
			await openChat(j.page);
			expect(await text(j.page, 'header p')).toBe('We answer within minutes.');
			// Hours on no day: away whatever the engine's clock says.
			await putSettings(j.token, { businessHours: { enabled: true, timeZone, weekly: week, holidays: [] } });
			await j.visit();
			// The stored config draws the launcher at once; the revalidated one replaces it.
			await expect.poll(() => attribute(j.page, '.launcher', 'aria-label')).toBe('Chat with Support, Away');
			expect(await count(j.page, '.launcher .dot.away')).toBe(1);
			await openChat(j.page);
			expect(await text(j.page, 'header p')).toBe('We are away; we answer by e-mail.');
			expect(await logText(j.page)).toContain('Leave us a message');
			await send(j.page, 'Do you have size 44?');
			await expect.poll(() => text(j.page, '.error')).toBe('Required');
			expect(await conversations(j.token)).toEqual([]);
			await j.page.type('input[name=email]', 'buyer@example.com');
			await j.page.click('.composer button[type=submit]');
			const id = await onlyConversation(j.token);
			await expect.poll(() => logText(j.page)).toContain('We got your message and will reply by e-mail');
			expect((await conversation(j.token, id)).contact.claimedEmail).toBe('buyer@example.com');
		},
	},
	{
		name: 'offers the messaging app with the pre-filled text and a reference that keeps the campaign',
		async run(j) {
			await putSettings(j.token, {
				messagingBubble: { enabled: true, phoneNumber: '+5511999998888', prefilledMessage: 'Hi! I saw your ad' },
			});
			await j.visit({ path: '?utm_source=google&utm_campaign=spring&gclid=Cj0-bubble' });
			await j.page.click('.launcher');
			await expect.poll(() => count(j.page, '.menu a')).toBe(1);
			const href = (await attribute(j.page, '.menu a', 'href')) ?? '';
			const ref = /^https:\/\/wa\.me\/5511999998888\?text=Hi!%20I%20saw%20your%20ad%20\(ref%20([0-9A-Z]{8})\)$/.exec(
				href,
			)?.[1];
			expect(ref, href).toBeDefined();
			// What the link's click records, without leaving for an app this machine cannot reach.
			await j.page.run(
				`${IN_WIDGET}var a=root.querySelector('.menu a');a.addEventListener('click',function(e){e.preventDefault()});a.click()`,
			);
			await expect
				.poll(async () => (await api(baseUrl, j.token, 'GET', `/v3/widget/handoffs/${ref}`)).status)
				.toBe(200);
			const { body } = await api(baseUrl, j.token, 'GET', `/v3/widget/handoffs/${ref}`);
			expect(body).toMatchObject({
				ref,
				channel: 'whatsapp',
				origin: { utmSource: 'google', utmCampaign: 'spring', gclid: 'Cj0-bubble' },
			});
			// The other choice opens the chat here.
			await j.page.click('.launcher');
			await expect.poll(() => shown(j.page, '.menu button')).toBe(true);
			await j.page.click('.menu button');
			await expect.poll(() => shown(j.page, '.panel')).toBe(true);
		},
	},
	{
		name: 'fills the screen of a phone',
		viewport: { width: 390, height: 760 },
		async run(j) {
			await j.visit();
			await openChat(j.page);
			const panel = await layout(j.page, '.panel');
			expect(panel?.viewport.width).toBeLessThan(480);
			expect(panel).toMatchObject({ left: 0, top: 0, width: panel?.viewport.width, height: panel?.viewport.height });
			expect(await shown(j.page, '.launcher')).toBe(false);
			await send(j.page, 'From my phone');
			await expect.poll(() => count(j.page, '.msg.mine.sent')).toBe(1);
		},
	},
	{
		name: 'works from the keyboard alone: Tab to the launcher, Enter, type, send, Escape returns the focus',
		async run(j) {
			await j.visit();
			// The call to action comes first, then the launcher.
			await j.page.keyboard('Tab');
			await j.page.keyboard('Tab');
			expect(await focused(j.page)).toBe('button.launcher');
			await j.page.keyboard('Enter');
			await expect.poll(() => focused(j.page)).toBe('textarea.');
			await j.page.keyboard({ text: 'Typed without a mouse' });
			await j.page.keyboard('Enter');
			await expect.poll(() => logText(j.page)).toContain('Typed without a mouse');
			await onlyConversation(j.token);
			await j.page.keyboard('Escape');
			await expect.poll(() => shown(j.page, '.panel')).toBe(false);
			expect(await focused(j.page)).toBe('button.launcher');
		},
	},
	{
		name: "runs from the nonced snippet under a strict policy with 'strict-dynamic' and Trusted Types, no violation",
		async run(j) {
			await putSettings(j.token, { primaryColor: '#b4235a' });
			const nonce = randomUUID().replaceAll('-', '');
			const html = sitePage(j.workspaceId, { head: WATCH_VIOLATIONS }).replaceAll(
				'<script>',
				`<script nonce="${nonce}">`,
			);
			await j.visit({
				html,
				headers: { 'Content-Security-Policy': strictPolicy(`'nonce-${nonce}' 'strict-dynamic'`) },
			});
			await chatsUnderPolicy(j, '#b4235a');
		},
	},
	{
		name: 'runs from one script element with data attributes, no inline script, styled from files without constructable stylesheets',
		async run(j) {
			await putSettings(j.token, { primaryColor: '#1d6b42' });
			// The site's own file: the documented one-line stub, the ready call, and a browser without
			// adoptedStyleSheets (Safari before 16.4, Firefox before 101), so the widget links its two style files.
			const site = `window.kw = window.kw || function () { (kw.q = kw.q || []).push(arguments); };
kw('on', 'ready', function () { window.__ready = true; });
delete ShadowRoot.prototype.adoptedStyleSheets; delete Document.prototype.adoptedStyleSheets;
window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) { __violations.push(e.effectiveDirective + ' refused ' + (e.blockedURI || 'inline')); }, true);`;
			const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme bank</title>
<script src="site.js"></script>
<script type="module" src="${baseUrl}/widget.js" data-workspace-id="${j.workspaceId}" data-cta-text="Ask the bank" async></script>
</head><body><h1>Acme bank</h1><p>Welcome.</p></body></html>`;
			await j.visit({
				html,
				headers: { 'Content-Security-Policy': strictPolicy("'self'") },
				files: { 'site.js': { contentType: 'text/javascript', body: site } },
			});
			expect(await text(j.page, '.cta .act')).toBe('Ask the bank');
			await chatsUnderPolicy(j, '#1d6b42');
			expect(
				await j.page.run<string[]>(
					`${IN_WIDGET}return Array.from(root.querySelectorAll('link'),function(l){return l.href})`,
				),
			).toEqual([
				expect.stringMatching(new RegExp(`^${baseUrl}/widget-assets/launcher-[\\w-]+\\.css$`)),
				expect.stringMatching(new RegExp(`^${baseUrl}/widget-assets/panel-[\\w-]+\\.css$`)),
			]);
		},
	},
];

/**
 * Registers a file's hooks for `engine`: the browser (or WebKit's driver) and the customer's site, started
 * before its tests and stopped after them. Returns what makes a journey's context: a page of a fresh profile and
 * the seeded workspace `n`.
 */
export function engineHooks(
	engine: EngineName,
): (n: number, viewport?: { width: number; height: number }) => Promise<JourneyContext & { close(): Promise<void> }> {
	let launched: Engine | undefined;
	let site: HostSite | undefined;
	const open = new Set<EnginePage>();
	beforeAll(async () => {
		[launched, site] = await Promise.all([launchEngine(engine), startHostSite()]);
	});
	afterAll(async () => {
		await Promise.all([...open].map((page) => page.close().catch(() => {})));
		await launched?.quit();
		await site?.close();
	});
	return async (n, viewport) => {
		if (!launched || !site) throw new Error(`${ENGINE_LABELS[engine]} did not start`);
		const { workspaceId, token } = workspace(n);
		const page = await launched.newPage(viewport);
		const host = site;
		open.add(page);
		return {
			engine,
			page,
			workspaceId,
			token,
			async visit(options = {}) {
				const html = options.html ?? sitePage(workspaceId, options);
				await page.goto(host.put({ html, headers: options.headers, files: options.files }) + (options.path ?? ''));
				if (options.ready !== false) {
					await expect.poll(() => page.run('return window.__ready===true'), { timeout: 15_000 }).toBe(true);
				}
			},
			async close() {
				open.delete(page);
				await page.close();
			},
		};
	};
}

/**
 * The journeys as one `describe` for `engine`: skipped, saying why, where the engine is not installed (failed
 * instead under REQUIRE_ENGINES). One browser for the file, a fresh profile for each journey.
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
