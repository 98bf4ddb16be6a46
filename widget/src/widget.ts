/**
 * The widget's controller in the loader: runs the `kw` commands, keeps the config and the open/closed
 * state, fires the page's event callbacks, starts the visitor's session when the page needs one (a returning
 * visitor, `identify`), and imports the chat (a separate, versioned file) when the visitor opens it, or once
 * the page has settled when an open conversation may get replies (see FOLLOW_AFTER_MS).
 */

import { newHandoffRef } from '../../src/protocol/handoff-ref';
import { widgetAvailability } from '../../src/protocol/widget-availability';
import type { Origin, Session, WidgetConfig } from './api-types';
import { appLink, recordHandoff } from './bubble';
import {
	CommandError,
	callback,
	type EventName,
	eventName,
	type FieldOptions,
	fieldOptions,
	type Identity,
	type InitOptions,
	identity,
	initOptions,
	openOptions,
} from './commands';
import { loadConfig } from './config';
import type { Chat, ChatHost, MountChat } from './host';
import { chooseLocale, LAUNCHER_WORDS, type Locale, translator } from './i18n';
import { Launcher } from './launcher';
import { captureOrigin } from './origin';
import { idle, keepAttached, SECURE, scriptMayFocus } from './page';
import { endSession, forgetVisitor } from './session-end';
import { keys, load, save } from './storage';
import { FOLLOW_AFTER_MS, startVisit, tellIdentity } from './visit';

type Listener = (payload?: unknown) => void;

export class Widget {
	private options?: InitOptions;
	private fields: FieldOptions = {};
	private stored?: WidgetConfig;
	private launcher?: Launcher;
	private host?: HTMLElement;
	private chat?: Promise<Chat>;
	private locale: Locale = 'en';
	private started = false;
	private ready = false;
	private isOpen = false;
	private unread = 0;
	private ctaSeen = false;
	private origin?: Origin;
	private reference: string | null = null;
	/** What the page last said of the visitor (`identify`), told to each session once. */
	private identity?: Identity;
	/** The session this page started or resumed before the chat was needed; the chat takes it over. */
	private visit?: Promise<Session>;
	private readonly listeners = new Map<EventName, Set<Listener>>();
	/** Commands that need the widget on screen, held until the config has arrived. */
	private waiting: (() => void)[] = [];

	constructor(private readonly api: string) {}

	/** Runs one `kw(name, ...args)` call; a bad one is logged and changes nothing. */
	run(name: unknown, args: unknown[]): unknown {
		try {
			return this.command(name, args);
		} catch (error) {
			// Never into the page: a bad call is explained, anything else reported, and the next call runs.
			if (error instanceof CommandError) console.error(`[Parley] kw(${JSON.stringify(name)}): ${error.message}`);
			else console.error(`[Parley] kw(${JSON.stringify(name)}) failed:`, error);
			return undefined;
		}
	}

	private command(name: unknown, args: unknown[]): unknown {
		switch (name) {
			case 'init':
				return this.init(initOptions(args[0]));
			case 'start':
				return this.start();
			case 'config':
				this.fields = { ...this.fields, ...fieldOptions(args[0]) };
				return this.whenChat((chat) => chat.refresh(), false);
			case 'identify': {
				const visitor = identity(args[0]);
				return this.needsInit() && this.whenReady(() => this.identify(visitor));
			}
			case 'open': {
				const { message } = openOptions(args[0]);
				return this.needsInit() && this.whenReady(() => this.setOpen(true, message));
			}
			case 'close':
				return this.needsInit() && this.whenReady(() => this.setOpen(false));
			case 'toggle':
				return this.needsInit() && this.whenReady(() => this.setOpen(!this.isOpen));
			case 'reset':
				return this.needsInit() && this.whenReady(() => this.reset());
			case 'on': {
				const event = eventName(args[0]);
				const listener = callback(args[1]);
				const set = this.listeners.get(event) ?? new Set();
				this.listeners.set(event, set.add(listener));
				// `ready` happens once: a late subscriber still hears it.
				if (event === 'ready' && this.ready) setTimeout(() => set.has(listener) && this.call(listener, 'ready'));
				return () => set.delete(listener);
			}
			case 'off': {
				const set = this.listeners.get(eventName(args[0]));
				if (args[1] === undefined) set?.clear();
				else set?.delete(callback(args[1]));
				return undefined;
			}
			default:
				throw new CommandError(
					'unknown command (known: init, start, config, identify, open, close, toggle, on, off, reset)',
				);
		}
	}

	private needsInit(): true {
		if (!this.options) throw new CommandError("call kw('init', { workspaceId }) first");
		return true;
	}

	private init(options: InitOptions) {
		const first = this.options;
		if (first) {
			if (first.workspaceId !== options.workspaceId) {
				throw new CommandError(`already started for workspace ${first.workspaceId}`);
			}
			// The site owner's own init after the snippet's: its options win, the rest of the first's stay.
			const given = Object.entries(options).filter(([, value]) => value !== undefined);
			this.options = { ...first, ...Object.fromEntries(given) };
			this.redraw();
			if (options.autoStart === true) this.start();
			return;
		}
		if (!SECURE(location)) {
			console.warn('[Parley] The chat widget needs an HTTPS page (or localhost); it did not start.');
			this.options = options;
			this.started = true;
			return;
		}
		this.options = options;
		if (options.autoStart !== false) this.start();
	}

	private start() {
		const options = this.options;
		if (!options) throw new CommandError("call kw('init', { workspaceId }) first");
		if (this.started) return;
		this.started = true;
		this.origin = captureOrigin(options.workspaceId, location, document.referrer, Date.now());
		this.ctaSeen = load<boolean>(`cta-seen:${options.workspaceId}`) === true;
		const begin = () =>
			loadConfig(this.api, options.workspaceId, (config) => this.apply(config)).catch((error) =>
				console.error(`[Parley] The widget config could not be loaded (${error}); the widget stays hidden.`),
			);
		// After the current task: the rest of the queued calls (listeners, fields) are in place before the
		// config, even a cached one, brings the widget up. And not before the page has a body to hold it: the
		// script element of the install without inline script may run from the <head>, as soon as it arrives.
		if (document.body) setTimeout(begin);
		else addEventListener('DOMContentLoaded', begin);
	}

	private apply(stored: WidgetConfig) {
		this.stored = stored;
		this.locale = chooseLocale(this.options?.locale, navigator.languages ?? [navigator.language], stored.locale);
		if (!this.launcher) this.mount();
		this.redraw();
		// Once, when a config first rendered (if a cached copy failed to, the fresh one does).
		if (this.ready) return;
		this.ready = true;
		for (const run of this.waiting.splice(0)) run();
		this.emit('ready');
		// Business hours turn with the clock (and may be turned on by a later config): check every minute.
		setInterval(() => {
			this.render();
			this.chat?.then((chat) => chat.refresh(false)).catch(() => {});
		}, 60_000);
		// A returning visitor: resume the session once the page is idle (it records this visit's campaign, and
		// its unread counts show on the badge). Asked again when idle: a `reset` (a logout) may have ended it.
		const returning = () => load(`session:${stored.workspaceId}`);
		if (returning()) idle(() => this.chat || this.visit || (returning() && this.beginVisit()));
	}

	/**
	 * The page says who the visitor is. Until the chat is needed this costs no request of its own: the session
	 * start carries it, or, when this page's session has already started, one identify call (none when this
	 * session was told the same before).
	 */
	private identify(visitor: Identity) {
		this.identity = visitor;
		if (this.chat) return this.whenChat((chat) => chat.identify(visitor));
		if (!this.visit) return this.beginVisit();
		const workspaceId = (this.stored as WidgetConfig).workspaceId;
		this.visit.then((session) => tellIdentity(this.api, workspaceId, session.sessionToken, visitor)).catch(() => {});
	}

	/** Starts or resumes the session in the loader, telling who the visitor is; the chat takes it over later. */
	private beginVisit() {
		const workspaceId = (this.stored as WidgetConfig).workspaceId;
		const visit = startVisit(this.api, workspaceId, this.origin, this.identity);
		this.visit = visit;
		visit
			.then((session) => {
				// A reset since: this was the previous visitor's.
				if (this.visit !== visit) return;
				const refusal = session.identified?.refusal;
				if (refusal) console.error('[Parley] kw("identify"):', refusal);
				if (this.chat) return;
				this.setUnread(session.conversations.reduce((sum, c) => sum + c.unread, 0));
				// Replies may come to an open conversation (or unsent messages wait): follow it live, after the page
				// has settled. A visitor with only closed conversations costs nothing more until opening.
				const open = session.conversations.some((c) => c.status !== 'closed');
				if (!open && keys(`outbox:${workspaceId}:`).length === 0) return;
				idle(() => setTimeout(() => this.whenChat(() => {}), FOLLOW_AFTER_MS));
			})
			.catch((error) => {
				// The chat starts its own session when it is opened (and a later identify tries again); a refused
				// identity is the page's to fix.
				if (this.visit === visit) this.visit = undefined;
				if (this.identity) console.error('[Parley] kw("identify"):', error.message);
			});
	}

	/** Draws the launcher and, when it has loaded, the chat again from the current options and config. */
	private redraw() {
		this.render();
		this.chat?.then((chat) => chat.refresh()).catch(() => {});
	}

	private setUnread(count: number) {
		if (count === this.unread) return;
		this.unread = count;
		this.render();
		this.emit('unread', count);
	}

	private mount() {
		const host = document.createElement('parley-widget');
		// Set through the CSSOM: a style attribute is inline style, which a strict Content-Security-Policy refuses.
		const style = host.style;
		style.setProperty('display', 'block', 'important');
		style.setProperty('position', 'static', 'important');
		style.width = style.height = '0';
		const shadow = host.attachShadow({ mode: 'open' });
		const t = translator(LAUNCHER_WORDS, this.locale);
		const stylesheet = `${this.api}/${__LAUNCHER_STYLESHEET__}`;
		this.launcher = new Launcher(shadow, t, this.locale, stylesheet, {
			launch: () => this.launch(),
			chat: () => this.setOpen(true, undefined, true),
			app: () => {
				const options = this.options;
				if (options && this.reference && this.origin) {
					const session = load<string>(`session:${options.workspaceId}`);
					recordHandoff(this.api, options.workspaceId, this.reference, this.origin, session);
				}
				this.launcher?.showMenu(false);
			},
		});
		this.host = host;
		document.body.appendChild(host);
		keepAttached(host);
	}

	/** The stored config with the page's overrides. */
	config(): WidgetConfig {
		const stored = this.stored as WidgetConfig;
		const o = this.options ?? ({} as InitOptions);
		const pick = <K extends keyof WidgetConfig>(key: K, value: WidgetConfig[K] | undefined) =>
			value === undefined ? {} : { [key]: value };
		return {
			...stored,
			...pick('primaryColor', o.primaryColor),
			...pick('backgroundColor', o.backgroundColor),
			...pick('textColor', o.textColor),
			...pick('welcomeMessage', o.welcomeMessage),
			...pick('ctaText', o.ctaText),
			// The page's form fields add to the workspace's (which the Worker enforces); they cannot remove them.
			requiredFields: [...new Set([...stored.requiredFields, ...(this.fields.requiredFields ?? [])])],
			customFields: [
				...stored.customFields,
				...(this.fields.customFields ?? []).filter((f) => !stored.customFields.some((s) => s.name === f.name)),
			],
		};
	}

	private availability() {
		return widgetAvailability(this.config(), new Date());
	}

	private render() {
		if (!this.launcher || !this.stored) return;
		const { online } = this.availability();
		this.launcher.render(this.config(), { open: this.isOpen, online, unread: this.unread, ctaSeen: this.ctaSeen });
	}

	/** The launcher was clicked: with the messaging-app bubble on, offer both channels; else open or close. */
	private launch() {
		if (this.isOpen || !this.stored) return this.setOpen(!this.isOpen, undefined, true);
		if (this.origin && !this.reference) this.reference = newHandoffRef();
		const link = appLink(this.config(), this.origin ? this.reference : null);
		if (!link) return this.setOpen(true, undefined, true);
		this.launcher?.showMenu(!this.launcher.menuOpen, link);
	}

	/**
	 * `focus`: move the focus into the chat. From the launcher, yes; from a page script, not on a phone (it
	 * would pop the keyboard up) and never away from a field the visitor is typing in.
	 */
	private setOpen(open: boolean, prefill?: string, focus = scriptMayFocus()) {
		if (!this.stored) return;
		this.launcher?.showMenu(false);
		if (open && !this.ctaSeen) {
			this.ctaSeen = true;
			save(`cta-seen:${this.stored.workspaceId}`, true);
		}
		if (open === this.isOpen) {
			if (open && prefill !== undefined) this.whenChat((chat) => chat.open(prefill, focus));
			return;
		}
		this.isOpen = open;
		this.render();
		if (open) {
			this.whenChat((chat) => chat.open(prefill, focus));
			this.emit('open');
		} else {
			this.chat?.then((chat) => chat.close()).catch(() => {});
			// Back to the launcher only from inside the widget: a page script closing it keeps the page's focus.
			if (document.activeElement === this.host) this.launcher?.button.focus();
			this.emit('close');
		}
	}

	/**
	 * The site's logout. Everything of the previous visitor is dropped before this returns, so a command that
	 * follows (a login page's `identify`) reaches a new visitor: the chat's reset is queued on the chat ahead of
	 * it, and without a chat the session is forgotten here at once.
	 */
	private reset() {
		this.identity = undefined;
		if (this.chat) return this.whenChat((chat) => chat.reset(), false);
		const workspaceId = this.stored?.workspaceId as string;
		const visit = this.visit;
		const ended = load(`session:${workspaceId}`);
		this.visit = undefined;
		this.setUnread(0);
		forgetVisitor(this.api, workspaceId);
		// A session start already on its way is ended too once its token is known (unless it resumed the one
		// ended just now), and not kept.
		visit
			?.then(({ sessionToken }) => {
				if (sessionToken !== ended) endSession(this.api, workspaceId, sessionToken);
				if (load(`session:${workspaceId}`) === sessionToken) save(`session:${workspaceId}`, undefined);
			})
			.catch(() => {});
	}

	emit(name: EventName, payload?: unknown) {
		for (const listener of this.listeners.get(name) ?? []) this.call(listener, name, payload);
	}

	private call(listener: Listener, name: EventName, payload?: unknown) {
		try {
			listener(payload);
		} catch (error) {
			// The page's callback threw: report it, keep the widget going.
			console.error(`[Parley] A "${name}" callback threw:`, error);
		}
	}

	private whenReady(run: () => void) {
		if (this.ready) run();
		else this.waiting.push(run);
	}

	/** Imports the chat once (on first need) and runs `use` with it; `load: false` only uses a loaded one. */
	private whenChat(use: (chat: Chat) => unknown, load = true) {
		if (!this.chat && load && this.stored && this.launcher) this.chat = this.importChat(this.launcher);
		this.chat?.then(use).catch((error) => console.error('[Parley]', error));
	}

	private importChat(launcher: Launcher): Promise<Chat> {
		const host: ChatHost = {
			api: this.api,
			workspaceId: (this.stored as WidgetConfig).workspaceId,
			config: () => this.config(),
			availability: () => this.availability(),
			locale: this.locale,
			origin: () => this.origin,
			emit: (name, payload) => this.emit(name, payload),
			setUnread: (count) => this.setUnread(count),
			visit: this.visit,
			identity: () => this.identity,
			requestClose: () => this.setOpen(false),
			slot: launcher.slot,
		};
		return import('./chat/chat').then(
			(module: { mountChat: MountChat }) => module.mountChat(host),
			(error) => {
				// A release replaced the chat file under a page that loaded the old loader; the next try may work.
				this.chat = undefined;
				throw new Error(`the chat could not be loaded: ${error}`);
			},
		);
	}
}
