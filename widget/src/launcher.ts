/**
 * The part of the widget a visitor sees before opening it: the launcher button (with the availability dot and
 * the unread badge), the call-to-action label, and the channel choice when the messaging-app bubble is on.
 * Everything lives in a shadow root, so the page's CSS cannot reach it and its CSS cannot reach the page; its
 * styles are adopted by that root, or linked from `stylesheet` (sheets.ts), and nothing is built from markup.
 */
import type { WidgetConfig } from './api-types';
import type { LauncherWord, Translate } from './i18n';
import { icon } from './icons';
import { LAUNCHER_STYLE } from './launcher-styles';
import { adopt, linkStylesheet } from './sheets';

const CHAT_ICON = 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H8l-5 4V5a2 2 0 0 1 1-2z';
const CLOSE_ICON =
	'M18.3 5.7 12 12l6.3 6.3-1.4 1.4L10.6 13.4 4.3 19.7 2.9 18.3 9.2 12 2.9 5.7 4.3 4.3l6.3 6.3 6.3-6.3z';

/** Black or white, whichever reads better on `hex`. */
export function readableOn(hex: string): string {
	const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, (d) => d + d) : hex;
	const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(full.slice(i, i + 2), 16) / 255) as [number, number, number];
	return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6 ? '#1f2328' : '#ffffff';
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, parent: Node) {
	const node = document.createElement(tag);
	node.className = className;
	parent.appendChild(node);
	return node;
}

export class Launcher {
	readonly root: HTMLDivElement;
	readonly slot: HTMLDivElement;
	readonly button: HTMLButtonElement;
	private readonly dot: HTMLSpanElement;
	private readonly badge: HTMLSpanElement;
	private readonly cta: HTMLButtonElement;
	private readonly menu: HTMLDivElement;
	private readonly appLink: HTMLAnchorElement;
	private readonly menuText: HTMLParagraphElement;
	private readonly chatHere: HTMLButtonElement;
	private readonly chatIcon = icon(CHAT_ICON);
	private readonly closeIcon = icon(CLOSE_ICON);

	constructor(
		shadow: ShadowRoot,
		private readonly t: Translate<LauncherWord>,
		lang: string,
		stylesheet: string,
		actions: { launch(): void; chat(): void; app(link: HTMLAnchorElement): void },
	) {
		this.root = element('div', 'root', shadow);
		if (!adopt(shadow, LAUNCHER_STYLE)) linkStylesheet(shadow, stylesheet, this.root);
		this.root.lang = lang;
		this.slot = element('div', 'slot', this.root);
		this.menu = element('div', 'menu', this.root);
		this.menu.hidden = true;
		this.menu.setAttribute('role', 'group');
		this.menuText = element('p', '', this.menu);
		this.chatHere = element('button', '', this.menu);
		this.chatHere.type = 'button';
		this.chatHere.addEventListener('click', actions.chat);
		this.appLink = element('a', '', this.menu);
		this.appLink.target = '_blank';
		this.appLink.rel = 'noopener noreferrer';
		this.appLink.addEventListener('click', () => actions.app(this.appLink));
		this.cta = element('button', 'cta', this.root);
		this.cta.type = 'button';
		this.cta.addEventListener('click', actions.launch);
		this.button = element('button', 'launcher', this.root);
		this.button.type = 'button';
		this.button.setAttribute('aria-haspopup', 'dialog');
		this.button.addEventListener('click', actions.launch);
		this.dot = document.createElement('span');
		this.badge = document.createElement('span');
		this.badge.className = 'badge';
		this.root.addEventListener('keydown', (event) => {
			if (event.key === 'Escape' && !this.menu.hidden) {
				this.showMenu(false);
				this.button.focus();
			}
		});
	}

	/** Applies colors, position and texts; `appHref` is the messaging-app link, or null without the bubble. */
	render(config: WidgetConfig, state: { open: boolean; online: boolean; unread: number; ctaSeen: boolean }) {
		// Through the CSSOM, which a Content-Security-Policy does not count as inline style (a style attribute is).
		const style = this.root.style;
		style.setProperty('--p', config.primaryColor);
		style.setProperty('--on-p', readableOn(config.primaryColor));
		style.setProperty('--bg', config.backgroundColor);
		style.setProperty('--fg', config.textColor);
		this.root.className = `root ${config.position === 'left' ? 'left' : 'right'}${state.open ? ' open' : ''}`;
		this.button.replaceChildren(state.open ? this.closeIcon : this.chatIcon);
		this.button.setAttribute('aria-expanded', String(state.open));
		const label = state.open ? this.t('closeChat') : this.t('chatWith', config.displayName);
		const unread = state.unread > 0 ? `, ${this.t('unread', state.unread)}` : '';
		const availability = config.businessHours.enabled ? `, ${this.t(state.online ? 'online' : 'offline')}` : '';
		this.button.setAttribute('aria-label', label + availability + unread);
		this.dot.className = `dot${state.online ? '' : ' away'}`;
		if (config.businessHours.enabled && !state.open) this.button.append(this.dot);
		this.badge.textContent = String(state.unread);
		if (state.unread > 0 && !state.open) this.button.append(this.badge);
		// Before opening: the welcome message (the spec shows it before and when the chat opens) and the call
		// to action, until the visitor has opened the chat once.
		const greet = document.createElement('span');
		greet.className = 'greet';
		greet.textContent = config.welcomeMessage;
		const act = document.createElement('strong');
		act.className = 'act';
		act.textContent = config.ctaText;
		this.cta.replaceChildren(...[greet, act].filter((part) => part.textContent));
		this.cta.hidden = state.open || state.ctaSeen || !(config.ctaText || config.welcomeMessage);
		this.menuText.textContent = this.t('chooseChannel');
		this.chatHere.textContent = this.t('chatHere');
		this.appLink.textContent = this.t('openApp');
	}

	showMenu(show: boolean, appHref?: string) {
		if (appHref) this.appLink.href = appHref;
		this.menu.hidden = !show;
		if (show) this.chatHere.focus();
	}

	get menuOpen(): boolean {
		return !this.menu.hidden;
	}
}
