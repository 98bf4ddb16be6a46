/**
 * The panel's header: logo, display name, the availability line, the conversations button and close; and
 * under it the banner that says why messages wait (rate-limited, service unreachable).
 */

import type { WidgetAvailability, WidgetConfig } from '../api-types';
import type { Translate } from '../i18n';
import type { ChatWord } from './words';

export class PanelHeader {
	readonly element = document.createElement('header');
	readonly listButton = document.createElement('button');
	readonly banner = document.createElement('div');
	private readonly logo = document.createElement('img');
	private readonly title = document.createElement('h2');
	private readonly status = document.createElement('p');
	private brokenLogo = '';

	/** `api`: the Worker's origin, which an uploaded logo's path (`/widget/{ws}/logo/…`) is relative to. */
	constructor(
		t: Translate<ChatWord>,
		private readonly api: string,
		actions: { list(): void; close(): void },
	) {
		const who = document.createElement('div');
		who.className = 'who';
		who.append(this.title, this.status);
		const close = document.createElement('button');
		close.type = 'button';
		close.textContent = '×';
		close.setAttribute('aria-label', t('closeChat'));
		close.addEventListener('click', actions.close);
		this.listButton.type = 'button';
		this.listButton.textContent = '☰';
		this.listButton.setAttribute('aria-label', t('conversations'));
		this.listButton.addEventListener('click', actions.list);
		this.logo.alt = '';
		// A config cached from before a logo change may name an image no longer served: no broken icon.
		this.logo.addEventListener('error', () => {
			this.brokenLogo = this.logo.src;
			this.logo.hidden = true;
		});
		this.element.append(this.logo, who, this.listButton, close);
		this.banner.className = 'banner';
		this.banner.setAttribute('role', 'status');
		this.banner.hidden = true;
	}

	/** The banner's text, or null to hide it. */
	problem(text: string | null): void {
		this.banner.hidden = text === null;
		this.banner.textContent = text ?? '';
	}

	render(config: WidgetConfig, availability: WidgetAvailability, hasConversations: boolean): void {
		this.title.textContent = config.displayName;
		const src = config.logoUrl ? new URL(config.logoUrl, this.api).href : '';
		this.logo.hidden = !src || src === this.brokenLogo;
		if (src && this.logo.src !== src) this.logo.src = src;
		// Without business hours there is no schedule to tell about (the welcome message says hello).
		this.status.hidden = !config.businessHours.enabled;
		const state = document.createElement('span');
		state.className = `state${availability.online ? '' : ' away'}`;
		this.status.replaceChildren(state, availability.availabilityMessage);
		this.listButton.hidden = !hasConversations;
	}
}
