/**
 * The panel's header: logo, display name, the availability line, the conversations button and close; and
 * under it the banner that says why messages wait (rate-limited, service unreachable).
 */

import type { WidgetAvailability } from '../../../src/engines/widget-availability';
import type { WidgetConfig } from '../api-types';
import type { Translate } from '../i18n';
import type { ChatWord } from './words';

export class PanelHeader {
	readonly element = document.createElement('header');
	readonly listButton = document.createElement('button');
	readonly banner = document.createElement('div');
	private readonly logo = document.createElement('img');
	private readonly title = document.createElement('h2');
	private readonly status = document.createElement('p');

	constructor(t: Translate<ChatWord>, actions: { list(): void; close(): void }) {
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
		this.logo.hidden = !config.logoUrl;
		if (config.logoUrl) this.logo.src = config.logoUrl;
		// Without business hours there is no schedule to tell about (the welcome message says hello).
		this.status.hidden = !config.businessHours.enabled;
		const state = document.createElement('span');
		state.className = `state${availability.online ? '' : ' away'}`;
		this.status.replaceChildren(state, availability.availabilityMessage);
		this.listButton.hidden = !hasConversations;
	}
}
