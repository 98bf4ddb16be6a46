/**
 * The contract between the loader (widget.js) and the chat it imports on open (widget-assets/chat-*.js):
 * the loader owns the page-facing parts (commands, events, config, launcher), the chat owns the
 * conversation. Types only: nothing here reaches either bundle.
 */

import type { Origin, Session, WidgetAvailability, WidgetConfig } from './api-types';
import type { EventName, Identity } from './commands';
import type { Locale } from './i18n';

export interface ChatHost {
	/** The Worker's origin, e.g. https://chat.example.com. */
	api: string;
	workspaceId: string;
	/** The stored config with the page's `init` and `config` overrides applied. */
	config(): WidgetConfig;
	availability(): WidgetAvailability;
	locale: Locale;
	/** The campaign origin in force (see origin.ts). */
	origin(): Origin | undefined;
	emit(name: EventName, payload?: unknown): void;
	/** Messages from the team the visitor has not seen, for the launcher's badge and the `unread` event. */
	setUnread(count: number): void;
	/** The panel asks to be closed (its close button, Escape). */
	requestClose(): void;
	/** Where the panel lives, inside the widget's shadow root. */
	slot: HTMLElement;
	/** The session the loader started or resumed on this page before the chat was imported, if it did. */
	visit?: Promise<Session>;
	/** What the page last said of the visitor (`identify`), if anything. */
	identity(): Identity | undefined;
}

export interface Chat {
	/** `focus`: move the keyboard focus into the chat (not when a page script opened it on a phone). */
	open(prefill?: string, focus?: boolean): void;
	close(): void;
	identify(identity: Identity): Promise<void>;
	reset(): Promise<void>;
	/** The config changed, or (`configChanged` false) the clock turned: re-render what depends on them. */
	refresh(configChanged?: boolean): void;
}

export type MountChat = (host: ChatHost) => Chat;
