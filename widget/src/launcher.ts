/**
 * The part of the widget a visitor sees before opening it: the launcher button (with the availability dot and
 * the unread badge), the call-to-action label, and the channel choice when the messaging-app bubble is on.
 * Everything lives in a shadow root, so the page's CSS cannot reach it and its CSS cannot reach the page.
 */
import type { WidgetConfig } from './api-types';
import type { LauncherWord, Translate } from './i18n';

const CHAT_ICON =
	'<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H8l-5 4V5a2 2 0 0 1 1-2z"/></svg>';
const CLOSE_ICON =
	'<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M18.3 5.7 12 12l6.3 6.3-1.4 1.4L10.6 13.4 4.3 19.7 2.9 18.3 9.2 12 2.9 5.7 4.3 4.3l6.3 6.3 6.3-6.3z"/></svg>';

const STYLE = `
:host{all:initial}
.root{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);letter-spacing:normal;text-transform:none;text-align:start;word-spacing:normal}
.root *{box-sizing:border-box;font:inherit}
[hidden]{display:none!important}
.launcher{position:fixed;bottom:20px;right:20px;z-index:2147483000;width:56px;height:56px;border:0;border-radius:50%;padding:0;margin:0;background:var(--p);color:var(--on-p);cursor:pointer;box-shadow:0 4px 16px rgba(0,0,0,.22);display:flex;align-items:center;justify-content:center;transition:transform .15s}
.launcher:hover{transform:scale(1.06)}
.launcher:focus-visible,.cta:focus-visible,.menu :focus-visible{outline:3px solid var(--p);outline-offset:3px}
.launcher svg{width:26px;height:26px;fill:currentColor}
.left .launcher{right:auto;left:20px}
.dot{position:absolute;right:1px;bottom:1px;width:13px;height:13px;border-radius:50%;border:2px solid #fff;background:#1a7f37}
.dot.away{background:#8c959f}
.badge{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;padding:0 6px;border-radius:10px;background:#cf222e;color:#fff;font-size:12px;font-weight:600;line-height:20px;text-align:center}
.cta{position:fixed;bottom:32px;right:88px;z-index:2147483000;max-width:260px;margin:0;padding:9px 14px;border:0;border-radius:18px;background:var(--bg);color:var(--fg);box-shadow:0 2px 12px rgba(0,0,0,.18);cursor:pointer;text-align:start}
.left .cta{right:auto;left:88px}
.cta .greet{display:block}.cta .act{display:block;color:var(--p);margin-top:2px}
.menu{position:fixed;bottom:88px;right:20px;z-index:2147483000;width:250px;padding:14px;border-radius:14px;background:var(--bg);color:var(--fg);box-shadow:0 6px 24px rgba(0,0,0,.2);display:flex;flex-direction:column;gap:8px}
.left .menu{right:auto;left:20px}
.menu p{margin:0 0 4px}
.menu button,.menu a{display:block;width:100%;padding:10px 12px;border:0;border-radius:10px;background:var(--p);color:var(--on-p);text-align:center;text-decoration:none;cursor:pointer}
.menu a{background:#25d366;color:#06361a}
@media (max-width:480px){.open .launcher{display:none}}
@media (prefers-reduced-motion:reduce){.root *{transition:none!important;animation:none!important}}
`;

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

	constructor(
		shadow: ShadowRoot,
		private readonly t: Translate<LauncherWord>,
		lang: string,
		actions: { launch(): void; chat(): void; app(link: HTMLAnchorElement): void },
	) {
		element('style', '', shadow).textContent = STYLE;
		this.root = element('div', 'root', shadow);
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
		const style = this.root.style;
		style.setProperty('--p', config.primaryColor);
		style.setProperty('--on-p', readableOn(config.primaryColor));
		style.setProperty('--bg', config.backgroundColor);
		style.setProperty('--fg', config.textColor);
		this.root.className = `root ${config.position === 'left' ? 'left' : 'right'}${state.open ? ' open' : ''}`;
		this.button.innerHTML = state.open ? CLOSE_ICON : CHAT_ICON;
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
