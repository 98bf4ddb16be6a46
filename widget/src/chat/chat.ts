/**
 * The chat panel, imported by the loader the first time it is needed. It shows one conversation at a time
 * (the visitor's latest open one, or a new one), lists the earlier ones, keeps the conversation's socket,
 * and sends through the outbox so nothing typed is lost.
 *
 * This file is the controller: it builds the panel, holds its state and answers the loader. The work is done
 * by functions that take the panel, by meaning: view.ts (what is shown), sending.ts (the outbox's path),
 * live.ts (the conversation's socket) and session.ts (resuming, identifying, a lost session).
 */
import type { Conversation, Details } from '../api-types';
import type { Identity } from '../commands';
import type { Chat, ChatHost } from '../host';
import { type Translate, translator } from '../i18n';
import { type LiveConversation, VisitorClient } from './client';
import { Composer } from './composer';
import type { PrechatForm } from './fields';
import { PanelHeader } from './header';
import { markRead } from './live';
import { MessageLog } from './log';
import { Outbox, type Pending } from './outbox';
import { outboxEvents, send, sendFile } from './sending';
import { identifyVisitor, resume, sessionLost } from './session';
import { PANEL_STYLE } from './styles';
import { UnreadCounts } from './unread';
import { focusInside, node, scroll, showConversation, showList, showStatus } from './view';
import { CHAT_WORDS, type ChatWord } from './words';

export function mountChat(host: ChatHost): Chat {
	return new ChatPanel(host);
}

/** The panel: its parts and its state, read and changed by the modules named above. */
export class ChatPanel implements Chat {
	readonly t: Translate<ChatWord>;
	readonly client: VisitorClient;
	readonly outbox: Outbox;
	readonly panel = node('section', 'panel');
	readonly header: PanelHeader;
	readonly log: MessageLog;
	readonly list = node('ul', 'list');
	readonly typing = node('div', 'typing');
	readonly composer: Composer;
	conversations: Conversation[] = [];
	/** The conversation shown; null for a new one (started by the first message sent). */
	current: Conversation | null = null;
	live?: LiveConversation;
	/** The socket's backlog has arrived: what comes now is new. */
	liveSynced = false;
	form?: PrechatForm;
	readSent = 0;
	readonly unread: UnreadCounts;
	known: Details = {};
	/** The visitor sent something on this page: the view is theirs, a late resume does not switch it. */
	touched = false;
	/** The visitor picked a conversation (or a new one) from the list: identify does not switch it either. */
	chosen = false;
	/** What the page last said of the visitor, said again to a new session if this one is lost. */
	identity?: Identity;
	isOpen = false;
	view: 'conversation' | 'list' = 'conversation';
	shownOffline = false;
	typingTimer?: ReturnType<typeof setTimeout>;
	resumeTimer?: ReturnType<typeof setTimeout>;
	resumeBackoffMs = 5000;
	/** Bumped by `reset`: work begun for the previous visitor is dropped. */
	generation = 0;

	constructor(readonly host: ChatHost) {
		const t = translator(CHAT_WORDS, host.locale);
		this.t = t;
		this.client = new VisitorClient(host.api, host.workspaceId, host.visit);
		this.client.onSessionLost = () => sessionLost(this);
		this.outbox = new Outbox(this.client, host.workspaceId, () => host.origin(), outboxEvents(this));
		this.unread = new UnreadCounts((total) => host.setUnread(total));
		this.log = new MessageLog(t, () => host.config().displayName);
		const style = node('style');
		style.textContent = PANEL_STYLE;
		this.panel.hidden = true;
		this.panel.lang = host.locale;
		this.panel.setAttribute('role', 'dialog');
		this.panel.addEventListener('keydown', (event) => {
			if (event.key === 'Escape') host.requestClose();
		});
		this.header = new PanelHeader(t, host.api, {
			list: () => showList(this, this.view !== 'list'),
			close: () => host.requestClose(),
		});
		this.list.hidden = true;
		this.typing.setAttribute('aria-live', 'polite');
		this.composer = new Composer(
			t,
			(text) => send(this, text),
			(typing) => this.live?.send({ type: 'typing', typing }),
			(file) => sendFile(this, file),
		);
		this.panel.append(
			this.header.element,
			this.header.banner,
			this.log.element,
			this.list,
			this.typing,
			this.composer.element,
		);
		host.slot.append(style, this.panel);
		document.addEventListener('visibilitychange', () => markRead(this));
		this.touched = this.outbox.items.some((item) => item.conversationId === null && !item.failed);
		this.refresh();
		showConversation(this, null);
		if (this.client.hasSession || this.outbox.items.length > 0) resume(this, this.generation);
		// Told by the loader before the chat was imported (usually with the session start: then no request here).
		const told = host.identity();
		if (told) this.identify(told).catch(() => {});
	}

	open(prefill?: string, focus = true): void {
		this.isOpen = true;
		this.panel.hidden = false;
		if (prefill !== undefined) {
			if (this.view === 'list') showList(this, false);
			this.composer.prefill(prefill);
		}
		markRead(this);
		if (focus) focusInside(this);
		scroll(this);
	}

	close(): void {
		this.isOpen = false;
		this.panel.hidden = true;
	}

	identify(identity: Identity): Promise<void> {
		return identifyVisitor(this, identity);
	}

	async reset(): Promise<void> {
		this.generation++;
		clearTimeout(this.resumeTimer);
		// Forgotten here first: a logout usually navigates away at once, before any answer could arrive.
		this.client.end();
		this.outbox.clear();
		this.conversations = [];
		this.unread.clear();
		this.known = {};
		this.identity = undefined;
		this.touched = false;
		this.chosen = false;
		this.problem(null);
		showConversation(this, null);
	}

	refresh(configChanged = true): void {
		const config = this.host.config();
		const availability = this.host.availability();
		this.panel.setAttribute('aria-label', this.t('chatWith', config.displayName));
		this.header.render(config, availability, this.conversations.length > 0);
		// A new conversation's form depends on the fields and on being offline; redraw it when they change.
		const redraw = configChanged || this.shownOffline !== this.offline;
		if (redraw && !this.current && this.view === 'conversation' && this.log.element.isConnected) {
			showConversation(this, null);
		}
		// The workspace may have changed what writing on a closed conversation does.
		if (configChanged && this.current && this.view === 'conversation') showStatus(this);
	}

	/** Writing on a closed conversation reopens it (the Worker's default), rather than being refused (409). */
	get reopens(): boolean {
		return this.host.config().closedConversationReply !== 'new';
	}

	get offline(): boolean {
		return !this.host.availability().online;
	}

	readonly discard = (item: Pending) => this.outbox.discard(item.clientMessageId);

	readonly startNew = () => {
		this.chosen = true;
		showConversation(this, null);
		focusInside(this);
	};

	/** Why messages wait, in the banner, or null to hide it. */
	problem(problem: 'rate_limited' | 'unreachable' | null) {
		this.header.problem(problem && this.t(problem === 'rate_limited' ? 'tooMany' : 'unreachable'));
	}
}
