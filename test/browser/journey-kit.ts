// What the widget's journeys (journeys.ts, journeys-site.ts) are written with: the context a journey gets (a
// page with nothing stored in one engine, its seeded workspace, the customer's site), and small readers of the
// widget's shadow root, written as scripts so they run the same in the three engines (engines.ts).
import { afterAll, beforeAll, expect } from 'vitest';
import { ENGINE_LABELS, type Engine, type EngineName, type EnginePage, launchEngine } from './engines';
import { api, rgb, workspace } from './harness';
import { type HostPage, type HostSite, startHostSite } from './host-site';
import { baseUrl, conversations, widgetHtml } from './widget-page';

/** One journey: what it is named in every engine's report, and what it does. */
export interface Journey {
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
	/** Puts a page with the widget on the customer's site (widget-page.ts's `widgetHtml`) and opens it. */
	visit(options?: SitePageOptions): Promise<void>;
}

export interface SitePageOptions {
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

// What the journeys read in the page: small scripts over the widget's shadow root.
export const IN_WIDGET = "var root=document.querySelector('parley-widget');root=root&&root.shadowRoot;";

/** How many elements match `selector` in the widget. */
export const count = (page: EnginePage, selector: string) =>
	page.run<number>(`${IN_WIDGET}return root?root.querySelectorAll(arguments[0]).length:0`, selector);

/** The text of the first element matching `selector` in the widget, or null. */
export const text = (page: EnginePage, selector: string) =>
	page.run<string | null>(
		`${IN_WIDGET}var e=root&&root.querySelector(arguments[0]);return e?e.textContent:null`,
		selector,
	);

/** The texts of every element matching `selector` in the widget. */
export const texts = (page: EnginePage, selector: string) =>
	page.run<string[]>(
		`${IN_WIDGET}return root?Array.from(root.querySelectorAll(arguments[0]),function(e){return e.textContent}):[]`,
		selector,
	);

/** An attribute (or, with `.name`, a property) of the first element matching `selector`. */
export const attribute = (page: EnginePage, selector: string, name: string) =>
	page.run<string | null>(
		`${IN_WIDGET}var e=root&&root.querySelector(arguments[0]);if(!e)return null;var n=arguments[1];return n[0]==='.'?e[n.slice(1)]:e.getAttribute(n)`,
		selector,
		name,
	);

/** Whether the first element matching `selector` is shown (laid out, not hidden). */
export const shown = (page: EnginePage, selector: string) =>
	page.run<boolean>(
		`${IN_WIDGET}var e=root&&root.querySelector(arguments[0]);return !!e&&e.getClientRects().length>0&&getComputedStyle(e).visibility!=='hidden'`,
		selector,
	);

/** Where the element sits in the viewport, its colours and position style. */
export const layout = (page: EnginePage, selector: string) =>
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
export const focused = (page: EnginePage) =>
	page.run<string>(
		"var a=document.activeElement,i=a&&a.shadowRoot&&a.shadowRoot.activeElement;return i?i.tagName.toLowerCase()+'.'+i.className:(a?a.tagName.toLowerCase():'')",
	);

export const events = (page: EnginePage) => page.run<unknown[]>('return window.__events');
export const kw = (page: EnginePage, ...args: unknown[]) => page.run<void>('window.kw.apply(null, arguments)', ...args);

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
export async function onlyConversation(token: string): Promise<string> {
	await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBe(1);
	return (await conversations(token))[0]?.id as string;
}

export async function reply(token: string, conversationId: string, message: string) {
	const { status, body } = await api(baseUrl, token, 'POST', '/v3/messages', { conversationId, text: message });
	expect(status, JSON.stringify(body)).toBe(201);
}

/**
 * Business hours from an hour before now to an hour after, on today's weekday, in a zone with a half-hour
 * offset whose day is not about to turn (India's, or Newfoundland's nine hours behind it), as Node's Intl sees it.
 */
export function hoursAroundNow(): { timeZone: string; weekday: string; start: string; end: string } {
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
export const KEEP_SOCKETS = `<script>(function(){var Native=WebSocket,kept=[];window.__sockets=kept;
window.WebSocket=function(url,protocols){var s=protocols===undefined?new Native(url):new Native(url,protocols);kept.push(s);return s};
window.WebSocket.prototype=Native.prototype;['CONNECTING','OPEN','CLOSING','CLOSED'].forEach(function(k){window.WebSocket[k]=Native[k]});})();</script>`;

/**
 * Issue 39's strict policy: `scripts` beside the widget's origin, the widget's origin for its API, socket,
 * images and styles, nothing inline for styles, nothing evaluated, Trusted Types for every script sink. The
 * site's own origin for its images too (Firefox and WebKit ask for its /favicon.ico).
 */
export function strictPolicy(scripts: string): string {
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
export const WATCH_VIOLATIONS = `<script>window.__violations=[];document.addEventListener('securitypolicyviolation',function(e){__violations.push(e.effectiveDirective+' refused '+(e.blockedURI||'inline'))},true);</script>`;

/** What a strict page must still allow: the launcher in its corner and colour, a message and the reply; no refusal. */
export async function chatsUnderPolicy(j: JourneyContext, primaryColor: string) {
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

/**
 * Registers a file's hooks for `engine`: the browser (or WebKit's driver) and the customer's site, started
 * before its tests and stopped after them. Returns what makes a journey's context: a page with nothing stored and
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
				const html = options.html ?? widgetHtml(workspaceId, options);
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
