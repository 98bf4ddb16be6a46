/**
 * The chat panel, imported by the loader the first time it is needed. It shows one conversation at a time
 * (the visitor's latest open one, or a new one), lists the earlier ones, keeps the conversation's socket,
 * and sends through the outbox so nothing typed is lost.
 */
import type { Conversation, Details, Message, ServerFrame } from '../api-types';
import type { Identity } from '../commands';
import type { Chat, ChatHost } from '../host';
import { type Translate, translator } from '../i18n';
import { CallError, LiveConversation, VisitorClient } from './client';
import { closedNote, markStatus } from './closed';
import { Composer } from './composer';
import { PrechatForm } from './fields';
import { PanelHeader } from './header';
import { conversationList } from './list';
import { MessageLog } from './log';
import { Outbox, type Pending } from './outbox';
import { PANEL_STYLE } from './styles';
import { UnreadCounts } from './unread';
import { CHAT_WORDS, type ChatWord } from './words';

function node<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text?: string) {
	const element = document.createElement(tag);
	if (className) element.className = className;
	if (text !== undefined) element.textContent = text;
	return element;
}

export function mountChat(host: ChatHost): Chat {
	return new ChatPanel(host);
}

class ChatPanel implements Chat {
	private readonly t: Translate<ChatWord>;
	private readonly client: VisitorClient;
	private readonly outbox: Outbox;
	private readonly panel = node('section', 'panel');
	private readonly header: PanelHeader;
	private readonly log: MessageLog;
	private readonly list = node('ul', 'list');
	private readonly typing = node('div', 'typing');
	private readonly composer: Composer;
	private conversations: Conversation[] = [];
	/** The conversation shown; null for a new one (started by the first message sent). */
	private current: Conversation | null = null;
	private live?: LiveConversation;
	/** The socket's backlog has arrived: what comes now is new. */
	private liveSynced = false;
	private form?: PrechatForm;
	private readSent = 0;
	private readonly unread: UnreadCounts;
	private known: Details = {};
	/** The visitor sent something on this page: the view is theirs, a late resume does not switch it. */
	private touched = false;
	/** The visitor picked a conversation (or a new one) from the list: identify does not switch it either. */
	private chosen = false;
	/** What the page last said of the visitor, said again to a new session if this one is lost. */
	private identity?: Identity;
	private isOpen = false;
	private view: 'conversation' | 'list' = 'conversation';
	private shownOffline = false;
	private typingTimer?: ReturnType<typeof setTimeout>;
	private resumeTimer?: ReturnType<typeof setTimeout>;
	private resumeBackoffMs = 5000;
	/** Bumped by `reset`: work begun for the previous visitor is dropped. */
	private generation = 0;

	constructor(private readonly host: ChatHost) {
		const t = translator(CHAT_WORDS, host.locale);
		this.t = t;
		this.client = new VisitorClient(host.api, host.workspaceId, host.visit);
		this.client.onSessionLost = () => this.sessionLost();
		this.outbox = new Outbox(this.client, host.workspaceId, () => host.origin(), {
			delivered: (item, message, started) => this.delivered(item, message, started),
			failed: (item) => {
				if (this.isShown(item)) this.log.showPending(item, this.discard);
			},
			changed: (problem) => this.problem(problem),
			details: () => this.known,
			closed: (id) => this.statusLearned(id, 'closed'),
		});
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
		this.header = new PanelHeader(t, {
			list: () => this.showList(this.view !== 'list'),
			close: () => host.requestClose(),
		});
		this.list.hidden = true;
		this.typing.setAttribute('aria-live', 'polite');
		this.composer = new Composer(
			t,
			(text) => this.send(text),
			(typing) => this.live?.send({ type: 'typing', typing }),
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
		document.addEventListener('visibilitychange', () => this.markRead());
		this.touched = this.outbox.items.some((item) => item.conversationId === null && !item.failed);
		this.refresh();
		this.showConversation(null);
		if (this.client.hasSession || this.outbox.items.length > 0) this.resume(this.generation);
		// Told by the loader before the chat was imported (usually with the session start: then no request here).
		const told = host.identity();
		if (told) this.identify(told).catch(() => {});
	}

	/** Resumes the stored session: the visitor's conversations, and the latest open one shown and live. */
	private async resume(generation: number) {
		try {
			const session = await this.client.session(this.host.origin());
			if (generation !== this.generation) return;
			this.adopt(session.conversations);
			if (!this.outbox.items.some((item) => !item.failed)) this.problem(null);
			this.resumeBackoffMs = 5000;
			if (!this.current && !this.touched && !this.chosen) {
				const waitingIn = this.outbox.items.find((item) => item.conversationId && !item.failed)?.conversationId;
				const latest =
					this.conversations.find((c) => c.id === waitingIn) ?? this.conversations.find((c) => c.status !== 'closed');
				if (latest) this.showConversation(latest);
			}
			this.outbox.flush();
		} catch (error) {
			if (generation !== this.generation || !(error instanceof CallError)) return;
			this.problem(error.status === 429 ? 'rate_limited' : 'unreachable');
			const wait = error.retryAfterMs ?? this.resumeBackoffMs;
			this.resumeBackoffMs = Math.min(this.resumeBackoffMs * 2, 60_000);
			this.resumeTimer = setTimeout(() => this.resume(generation), wait);
		}
	}

	/** Takes the Worker's list of the visitor's conversations (with their unread counts) as the truth. */
	private adopt(conversations: Conversation[]) {
		this.conversations = conversations;
		this.unread.adopt(conversations);
		this.header.listButton.hidden = conversations.length === 0;
	}

	open(prefill?: string, focus = true): void {
		this.isOpen = true;
		this.panel.hidden = false;
		if (prefill !== undefined) {
			if (this.view === 'list') this.showList(false);
			this.composer.prefill(prefill);
		}
		this.markRead();
		if (focus) this.focusInside();
		this.scroll();
	}

	/** Focus on what the visitor does next: the list, the form's first field, the composer, or the log. */
	private focusInside() {
		if (this.view === 'list') return this.list.querySelector('button')?.focus();
		const target = this.form?.element.querySelector<HTMLElement>('input,select') ?? this.composer.field;
		if (this.composer.element.hidden) this.log.element.focus();
		else target.focus();
	}

	private get hasFocus(): boolean {
		const root = this.panel.getRootNode() as ShadowRoot;
		return root.activeElement !== null && this.panel.contains(root.activeElement);
	}

	close(): void {
		this.isOpen = false;
		this.panel.hidden = true;
	}

	async identify(identity: Identity): Promise<void> {
		const generation = this.generation;
		this.identity = identity;
		await this.client.session(this.host.origin());
		if (generation !== this.generation) return;
		for (const key of ['name', 'email', 'phone'] as const) if (identity[key]) this.known[key] = identity[key];
		// A verified visitor may bring conversations from other devices.
		if (await this.client.identify(identity)) {
			const { data } = await this.client.conversations();
			if (generation === this.generation) this.adopt(data);
		}
		if (generation === this.generation && !this.current && !this.touched && !this.chosen) {
			this.showConversation(this.conversations.find((c) => c.status !== 'closed') ?? null);
		}
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
		this.showConversation(null);
	}

	/**
	 * The Worker refused the session (ended in another tab, or idle for 30 days): start over as a new visitor,
	 * keeping what waits to be sent, and tell the new session who the page says the visitor is.
	 */
	private sessionLost() {
		this.outbox.retarget(this.known);
		this.conversations = [];
		this.unread.clear();
		if (this.current) this.showConversation(null);
		if (this.identity) this.identify(this.identity).catch(() => {});
	}

	refresh(configChanged = true): void {
		const config = this.host.config();
		const availability = this.host.availability();
		this.panel.setAttribute('aria-label', this.t('chatWith', config.displayName));
		this.header.render(config, availability, this.conversations.length > 0);
		// A new conversation's form depends on the fields and on being offline; redraw it when they change.
		const redraw = configChanged || this.shownOffline !== this.offline;
		if (redraw && !this.current && this.view === 'conversation' && this.log.element.isConnected) {
			this.showConversation(null);
		}
		// The workspace may have changed what writing on a closed conversation does.
		if (configChanged && this.current && this.view === 'conversation') this.showStatus();
	}

	/** Writing on a closed conversation reopens it (the Worker's default), rather than being refused (409). */
	private get reopens(): boolean {
		return this.host.config().closedConversationReply !== 'new';
	}

	/** The item is on screen: in the conversation shown, or moved from it to a new one not shown yet. */
	private isShown(item: Pending): boolean {
		return (
			item.conversationId === (this.current?.id ?? null) || (!!item.movedFrom && item.movedFrom === this.current?.id)
		);
	}

	private get offline(): boolean {
		return !this.host.availability().online;
	}

	private readonly discard = (item: Pending) => this.outbox.discard(item.clientMessageId);

	/** Shows `conversation` (null: a new one) and keeps its socket; the previous socket is closed. */
	private showConversation(conversation: Conversation | null) {
		const t = this.t;
		// Redrawing removes the focused field: the focus must not fall out of the panel to the page.
		const hadFocus = this.hasFocus;
		this.showList(false);
		// The log is drawn anew from the socket's backlog, so the socket starts anew too.
		this.live?.stop();
		this.live = undefined;
		this.liveSynced = false;
		this.current = conversation;
		this.readSent = 0;
		this.typing.textContent = '';
		this.log.clear();
		const config = this.host.config();
		if (config.welcomeMessage) this.log.greet(config.welcomeMessage);
		this.form = undefined;
		this.shownOffline = this.offline;
		if (!conversation) {
			this.log.element.removeAttribute('aria-busy');
			const form = new PrechatForm(config, this.offline, this.known, t);
			if (!form.empty) {
				if (this.offline) form.element.prepend(node('strong', '', t('offlineTitle')));
				this.form = form;
				this.log.append(form.element);
			}
		} else {
			// Announced as one block once the history is in, not message by message.
			this.log.element.setAttribute('aria-busy', 'true');
			this.live = this.connect(conversation);
		}
		for (const item of this.outbox.items) {
			if (this.isShown(item)) this.log.showPending(item, this.discard);
		}
		this.composer.prompt(null, (answer) => this.send(answer), this.log.element);
		this.showStatus();
		this.header.listButton.hidden = this.conversations.length === 0;
		if (hadFocus) this.focusInside();
		this.scroll();
	}

	/**
	 * A closed conversation's note and composer: writing reopens it (so the composer stays, and the note says
	 * so), or the visitor starts a new one (no composer, and a button for it right in the note).
	 */
	private showStatus() {
		const closed = this.current?.status === 'closed';
		this.log.note(closed ? closedNote(this.t, this.reopens, this.startNew) : null);
		this.composer.setMode(this.composerMode());
	}

	private composerMode() {
		if (this.current?.status === 'closed' && !this.reopens) return 'closed';
		return this.offline && !this.current ? 'offline' : 'chat';
	}

	/** The new conversation on screen was started by its first message: keep the view, go live. */
	private follow(conversation: Conversation) {
		this.current = conversation;
		if (this.offline) this.log.append(node('p', 'note-box', this.t('offlineSent')));
		this.form?.element.remove();
		this.form = undefined;
		this.composer.setMode('chat');
		this.header.listButton.hidden = false;
		this.live = this.connect(conversation);
	}

	private connect(conversation: Conversation): LiveConversation {
		return new LiveConversation(this.client, conversation.id, 0, {
			message: (message) => this.received(message),
			frame: (frame) => this.frame(frame),
			status: (live) => {
				this.liveSynced = live;
				if (live) this.log.element.removeAttribute('aria-busy');
			},
			trouble: () => this.probe(),
		});
	}

	/** The socket keeps failing: is the session still good, the conversation still the visitor's? */
	private probe() {
		const generation = this.generation;
		this.client
			.conversations()
			.then(({ data }) => {
				if (generation !== this.generation) return;
				this.adopt(data);
				if (this.current && !data.some((c) => c.id === this.current?.id)) this.showConversation(null);
			})
			.catch(() => {});
	}

	private showList(show: boolean) {
		this.view = show ? 'list' : 'conversation';
		this.list.hidden = !show;
		this.log.element.hidden = show;
		this.composer.element.hidden = show || this.composerMode() === 'closed';
		this.header.listButton.setAttribute('aria-pressed', String(show));
		if (!show) return;
		this.list.replaceChildren(
			...conversationList(this.conversations, this.unread.byConversation, this.host.locale, this.t, (conversation) => {
				this.chosen = true;
				this.showConversation(conversation);
				this.focusInside();
			}),
		);
		this.list.querySelector('button')?.focus();
	}

	private send(text: string): boolean {
		if (this.composerMode() === 'closed') return false;
		let values: { details: Details; customFields: Record<string, string> } = { details: {}, customFields: {} };
		if (!this.current && this.form) {
			const collected = this.form.collect(this.t);
			if (!collected) return false;
			values = collected;
		}
		const item: Pending = {
			clientMessageId: crypto.randomUUID(),
			text,
			conversationId: this.current?.id ?? null,
			at: Date.now(),
			...(this.current ? {} : values),
		};
		this.touched = true;
		this.known = { ...this.known, ...values.details };
		this.log.showPending(item, this.discard);
		this.outbox.add(item);
		this.scroll();
		return true;
	}

	private delivered(item: Pending, message: Message, started: Conversation | null) {
		if (started) {
			if (!this.conversations.some((c) => c.id === started.id)) this.conversations.unshift(started);
			this.unread.read(started.id);
			this.host.emit('conversation_started', started);
			if (item.conversationId === null && !this.current) this.follow(started);
			// Moved from the closed conversation on screen (a 409): the visitor sees where it went.
			else if (item.conversationId === null && this.isShown(item)) this.showConversation(started);
		} else if (this.statusLearned(message.conversationId, 'open')) this.confirmStatus(message.conversationId);
		this.host.emit('message', message);
		this.received(message);
	}

	/** The Worker's answer told the conversation's status: the view and the list (drawn from `conversations`) agree. */
	private statusLearned(id: string, status: 'open' | 'closed'): boolean {
		const changed = markStatus([...this.conversations, this.current], id, status);
		if (changed && this.current?.id === id && this.view === 'conversation') this.showStatus();
		return changed;
	}

	/**
	 * A message stored on a conversation shown closed is taken to have reopened it at once; the Worker has the
	 * last word (the team may have closed it again after the message was written, or D1 may not have it yet).
	 */
	private confirmStatus(id: string) {
		const generation = this.generation;
		this.client
			.conversations()
			.then(({ data }) => {
				const stored = data.find((c) => c.id === id);
				if (generation === this.generation && stored?.status === 'closed') this.statusLearned(id, 'closed');
			})
			.catch(() => {});
	}

	private readonly startNew = () => {
		this.chosen = true;
		this.showConversation(null);
		this.focusInside();
	};

	/** A stored message (from the socket or an HTTP answer): shown once, by seq, counted if unseen. */
	private received(message: Message) {
		const id = message.conversationId;
		if (id !== this.current?.id || !this.log.add(message)) return;
		if (message.authorKind !== 'contact') {
			this.typing.textContent = '';
			this.unread.arrived(message, this.visible);
		}
		const last = this.log.last;
		const asked = last && last.authorKind !== 'contact' ? last.interactive : null;
		this.composer.prompt(asked, (answer) => this.send(answer), this.log.element);
		if (this.liveSynced) this.markRead();
		this.scroll();
	}

	private frame(frame: ServerFrame) {
		if (frame.type === 'synced') this.markRead();
		else if (frame.type === 'typing' && frame.author === 'operator') {
			clearTimeout(this.typingTimer);
			this.typing.textContent = frame.typing ? this.t('typing', this.host.config().displayName) : '';
			if (frame.typing) this.typingTimer = setTimeout(() => (this.typing.textContent = ''), 6000);
		}
	}

	private get visible(): boolean {
		return this.isOpen && this.view === 'conversation' && document.visibilityState === 'visible';
	}

	/** The visitor sees the conversation: one read receipt up to its last message. */
	private markRead() {
		const conversation = this.current;
		const seq = this.live?.seq ?? 0;
		if (!conversation || !this.visible || !this.liveSynced || seq <= this.readSent) return;
		this.readSent = seq;
		if (!this.live?.send({ type: 'read', seq })) {
			this.client.call('POST', `/conversations/${conversation.id}/read`, { seq }).catch(() => {});
		}
		this.unread.read(conversation.id);
	}

	private problem(problem: 'rate_limited' | 'unreachable' | null) {
		this.header.problem(problem && this.t(problem === 'rate_limited' ? 'tooMany' : 'unreachable'));
	}

	private scroll() {
		this.log.element.scrollTop = this.log.element.scrollHeight;
	}
}
