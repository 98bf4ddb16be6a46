/**
 * The chat panel, imported by the loader the first time it is needed. It shows one conversation at a time
 * (the visitor's latest open one, or a new one), lists the earlier ones, keeps the conversation's socket,
 * and sends through the outbox so nothing typed is lost.
 */
import type { Conversation, Details, Message, ServerFrame } from '../api-types';
import type { Identity } from '../commands';
import type { Chat, ChatHost } from '../host';
import { type Translate, translator } from '../i18n';
import { LiveConversation, VisitorClient } from './client';
import { Composer } from './composer';
import { PrechatForm } from './fields';
import { Outbox, type Pending } from './outbox';
import { messageElement } from './render';
import { PANEL_STYLE } from './styles';
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
	private readonly client: VisitorClient;
	private readonly outbox: Outbox;
	private readonly panel = node('section', 'panel');
	private readonly logo = node('img');
	private readonly title = node('h2');
	private readonly status = node('p');
	private readonly listButton = node('button', '', '☰');
	private readonly banner = node('div', 'banner');
	private readonly log = node('div', 'log');
	private readonly list = node('ul', 'list');
	private readonly typing = node('div', 'typing');
	private readonly composer: Composer;
	private conversations: Conversation[] = [];
	/** The conversation shown; null for a new one (started by the first message sent). */
	private current: Conversation | null = null;
	private live?: LiveConversation;
	private shown = new Map<number, HTMLElement>();
	private bySeq = new Map<number, Message>();
	private liveSynced = false;
	private pending = new Map<string, HTMLElement>();
	private form?: PrechatForm;
	private readSent = 0;
	private unread = new Map<string, number>();
	private known: Details = {};
	private isOpen = false;
	private view: 'conversation' | 'list' = 'conversation';
	private typingTimer?: ReturnType<typeof setTimeout>;
	private readonly t: Translate<ChatWord>;

	constructor(private readonly host: ChatHost) {
		this.t = translator(CHAT_WORDS, host.locale);
		const t = this.t;
		this.client = new VisitorClient(host.api, host.workspaceId);
		this.outbox = new Outbox(this.client, host.workspaceId, () => host.origin(), {
			delivered: (item, message, started) => this.delivered(item, message, started),
			changed: (problem) => this.problem(problem),
		});
		const style = node('style');
		style.textContent = PANEL_STYLE;
		this.panel.hidden = true;
		this.panel.setAttribute('role', 'dialog');
		this.panel.addEventListener('keydown', (event) => {
			if (event.key === 'Escape') host.requestClose();
		});
		const header = node('header');
		const who = node('div', 'who');
		who.append(this.title, this.status);
		const close = node('button', '', '×');
		close.type = 'button';
		close.setAttribute('aria-label', t('closeChat'));
		close.addEventListener('click', () => host.requestClose());
		this.listButton.type = 'button';
		this.listButton.setAttribute('aria-label', t('conversations'));
		this.listButton.addEventListener('click', () => this.showList(this.view !== 'list'));
		this.logo.alt = '';
		header.append(this.logo, who, this.listButton, close);
		this.banner.setAttribute('role', 'status');
		this.banner.hidden = true;
		this.log.setAttribute('role', 'log');
		this.log.setAttribute('aria-live', 'polite');
		this.log.tabIndex = 0;
		this.list.hidden = true;
		this.typing.setAttribute('aria-live', 'polite');
		this.composer = new Composer(
			t,
			(text) => this.send(text),
			(typing) => this.live?.send({ type: 'typing', typing }),
		);
		this.panel.append(header, this.banner, this.log, this.list, this.typing, this.composer.element);
		host.slot.append(style, this.panel);
		document.addEventListener('visibilitychange', () => this.markRead());
		this.refresh();
		if (this.client.hasSession || this.outbox.items.length > 0) this.resume();
		else this.showConversation(null);
	}

	/** Resumes the stored session: the visitor's conversations, the latest open one shown and live. */
	private async resume() {
		try {
			const session = await this.client.session(this.host.origin());
			this.conversations = session.conversations;
			for (const c of session.conversations) this.unread.set(c.id, c.unread);
			this.updateUnread();
			const pendingIn = this.outbox.items.find((item) => item.conversationId)?.conversationId;
			const latest =
				this.conversations.find((c) => c.id === pendingIn) ??
				this.conversations.find((c) => c.status !== 'closed') ??
				null;
			this.showConversation(latest);
			this.outbox.flush();
		} catch {
			this.showConversation(null);
			this.problem('unreachable');
			setTimeout(() => this.resume(), 5000);
		}
	}

	open(prefill?: string): void {
		this.isOpen = true;
		this.panel.hidden = false;
		if (prefill !== undefined) {
			if (this.view === 'list') this.showList(false);
			this.composer.prefill(prefill);
		}
		this.markRead();
		const firstField = this.form?.element.querySelector<HTMLElement>('input,select');
		(this.view === 'list' ? this.list.querySelector('button') : (firstField ?? this.composer.field))?.focus();
		this.scroll();
	}

	close(): void {
		this.isOpen = false;
		this.panel.hidden = true;
	}

	async identify(identity: Identity): Promise<void> {
		await this.client.session(this.host.origin());
		const answer = await this.client.call<{ verified: boolean }>('POST', '/identify', identity);
		for (const key of ['name', 'email', 'phone'] as const) if (identity[key]) this.known[key] = identity[key];
		if (answer.verified) {
			// A verified visitor may have brought conversations from other devices.
			this.conversations = (await this.client.conversations()).data;
			for (const c of this.conversations) this.unread.set(c.id, c.unread);
			this.updateUnread();
			if (!this.current) this.showConversation(this.conversations.find((c) => c.status !== 'closed') ?? null);
		}
		if (!this.current) this.showConversation(null);
	}

	async reset(): Promise<void> {
		if (this.client.hasSession) await this.client.call('POST', '/reset').catch(() => {});
		this.client.forget();
		this.outbox.clear();
		this.conversations = [];
		this.unread.clear();
		this.known = {};
		this.updateUnread();
		this.showConversation(null);
	}

	refresh(): void {
		const config = this.host.config();
		const availability = this.host.availability();
		const t = this.t;
		this.panel.setAttribute('aria-label', t('chatWith', config.displayName));
		this.title.textContent = config.displayName;
		this.logo.hidden = !config.logoUrl;
		if (config.logoUrl) this.logo.src = config.logoUrl;
		// Without business hours there is no schedule to tell about (the welcome message says hello).
		this.status.hidden = !config.businessHours.enabled;
		const dot = node('span', `state${availability.online ? '' : ' away'}`);
		this.status.replaceChildren(dot, availability.availabilityMessage);
		this.listButton.hidden = this.conversations.length === 0;
		if (this.view === 'conversation' && !this.current) this.showConversation(null);
	}

	private get offline(): boolean {
		return !this.host.availability().online;
	}

	/** Shows `conversation` (null: a new one) and keeps its socket; the previous socket is closed. */
	private showConversation(conversation: Conversation | null) {
		const t = this.t;
		this.showList(false);
		// The log is drawn anew from the socket's backlog, so the socket starts anew too.
		this.live?.stop();
		this.live = undefined;
		this.current = conversation;
		this.shown.clear();
		this.bySeq.clear();
		this.pending.clear();
		this.liveSynced = false;
		this.readSent = 0;
		this.typing.textContent = '';
		this.log.replaceChildren();
		const config = this.host.config();
		// The greeting; the header already tells the period's message when business hours are on.
		const intro = config.welcomeMessage;
		if (intro)
			this.log.append(messageElement({ text: intro, attachments: [], authorKind: 'operator' }, config.displayName));
		this.form = undefined;
		if (!conversation) {
			const form = new PrechatForm(config, this.offline, this.known, t);
			if (!form.empty) {
				if (this.offline) form.element.prepend(node('strong', '', t('offlineTitle')));
				this.form = form;
				this.log.append(form.element);
			}
		} else {
			this.live = this.connect(conversation);
		}
		for (const item of this.outbox.items) {
			if (item.conversationId === (conversation?.id ?? null)) this.showPending(item);
		}
		const closed = conversation?.status === 'closed';
		this.composer.setMode(closed ? 'closed' : this.offline && !conversation ? 'offline' : 'chat');
		if (closed) this.log.append(node('p', 'note-box', t('closed')));
		this.listButton.hidden = this.conversations.length === 0;
		this.scroll();
	}

	private showList(show: boolean) {
		const t = this.t;
		this.view = show ? 'list' : 'conversation';
		this.list.hidden = !show;
		this.log.hidden = show;
		this.composer.element.hidden = show;
		this.listButton.setAttribute('aria-pressed', String(show));
		if (!show) return;
		const fresh = node('button', '', `+ ${t('newConversation')}`);
		fresh.type = 'button';
		fresh.addEventListener('click', () => this.showConversation(null));
		const items = [fresh, ...this.conversations.map((c) => this.listItem(c))].map((button) => {
			const li = node('li');
			li.append(button);
			return li;
		});
		this.list.replaceChildren(...items);
		this.list.querySelector('button')?.focus();
	}

	private listItem(conversation: Conversation): HTMLButtonElement {
		const button = node('button');
		button.type = 'button';
		const when = new Date(conversation.lastMessageAt ?? conversation.createdAt);
		const label = `${when.toLocaleDateString(this.host.locale)} ${when.toLocaleTimeString(this.host.locale, { hour: '2-digit', minute: '2-digit' })}`;
		button.append(node('span', '', `${label}${conversation.status === 'closed' ? ` · ${this.t('closed')}` : ''}`));
		const unread = this.unread.get(conversation.id) ?? 0;
		if (unread > 0) button.append(node('span', 'count', String(unread)));
		button.addEventListener('click', () => {
			this.showConversation(conversation);
			this.composer.field.focus();
		});
		return button;
	}

	private send(text: string): boolean {
		let values = { details: {}, customFields: {} } as { details: Details; customFields: Record<string, string> };
		if (!this.current && this.form) {
			const collected = this.form.collect(this.t);
			if (!collected) return false;
			values = collected;
		}
		if (this.current?.status === 'closed') return false;
		const item: Pending = {
			clientMessageId: crypto.randomUUID(),
			text,
			conversationId: this.current?.id ?? null,
			...(this.current ? {} : values),
		};
		this.known = { ...this.known, ...values.details };
		this.showPending(item);
		this.outbox.add(item);
		return true;
	}

	private showPending(item: Pending) {
		const t = this.t;
		const element = messageElement(
			{ text: item.text, attachments: [], authorKind: 'contact' },
			null,
			item.failed ? 'failed' : 'pending',
			item.failed ? t('failed', item.failed) : t('sending'),
		);
		this.pending.get(item.clientMessageId)?.replaceWith(element);
		if (!this.pending.has(item.clientMessageId)) this.log.append(element);
		this.pending.set(item.clientMessageId, element);
		this.scroll();
	}

	private delivered(item: Pending, message: Message, started: Conversation | null) {
		if (started) {
			this.conversations.unshift(started);
			this.unread.set(started.id, 0);
			this.host.emit('conversation_started', started);
			if (!this.current && this.pending.has(item.clientMessageId)) this.follow(started);
		}
		this.host.emit('message', message);
		this.received(message);
		// The outbox may have refused later items for good: show why on each.
		for (const other of this.outbox.items)
			if (other.failed && this.pending.has(other.clientMessageId)) this.showPending(other);
	}

	/** The new conversation shown (its first message on screen) was started: keep the view, go live. */
	private follow(conversation: Conversation) {
		this.current = conversation;
		if (this.offline) this.log.append(node('p', 'note-box', this.t('offlineSent')));
		this.form?.element.remove();
		this.form = undefined;
		this.composer.setMode('chat');
		this.listButton.hidden = false;
		this.live = this.connect(conversation);
	}

	private connect(conversation: Conversation): LiveConversation {
		return new LiveConversation(this.client, conversation.id, 0, {
			message: (message) => this.received(message),
			frame: (frame) => this.frame(frame),
			status: (live) => {
				this.liveSynced = live;
			},
		});
	}

	/** A stored message of the current conversation (from the socket or an HTTP answer), placed by seq. */
	private received(message: Message) {
		if (message.conversationId !== this.current?.id || this.shown.has(message.seq)) return;
		const config = this.host.config();
		// The team, its bots and its automatic messages all speak under the widget's display name.
		const label = message.authorKind === 'contact' ? null : config.displayName;
		const element = messageElement(message, label);
		element.dataset.seq = String(message.seq);
		const own = message.clientMessageId ? this.pending.get(message.clientMessageId) : undefined;
		if (own) {
			own.replaceWith(element);
			this.pending.delete(message.clientMessageId as string);
		} else {
			const after = [...this.shown.entries()].filter(([seq]) => seq > message.seq).sort(([a], [b]) => a - b)[0];
			const firstPending = this.pending.values().next().value;
			if (after) after[1].before(element);
			else if (firstPending) firstPending.before(element);
			else this.log.append(element);
		}
		this.shown.set(message.seq, element);
		this.bySeq.set(message.seq, message);
		if (message.authorKind !== 'contact') {
			this.typing.textContent = '';
			if (!this.visible) {
				const id = message.conversationId;
				if (this.liveSynced) this.unread.set(id, (this.unread.get(id) ?? 0) + 1);
				this.updateUnread();
			}
		}
		this.composer.prompt(this.latestInteractive(), (answer) => this.send(answer), this.log);
		this.markRead();
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

	/** The interactive prompt of the last message, if the visitor has not answered it yet. */
	private latestInteractive() {
		const last = Math.max(0, ...this.bySeq.keys());
		const message = this.bySeq.get(last);
		return message && message.authorKind !== 'contact' ? message.interactive : null;
	}

	private get visible(): boolean {
		return this.isOpen && this.view === 'conversation' && document.visibilityState === 'visible';
	}

	private markRead() {
		const conversation = this.current;
		const seq = this.live?.seq ?? 0;
		if (!conversation || !this.visible || seq <= this.readSent) return;
		this.readSent = seq;
		if (!this.live?.send({ type: 'read', seq })) {
			this.client.call('POST', `/conversations/${conversation.id}/read`, { seq }).catch(() => {});
		}
		this.unread.set(conversation.id, 0);
		this.updateUnread();
	}

	private updateUnread() {
		let total = 0;
		for (const count of this.unread.values()) total += count;
		this.host.setUnread(total);
	}

	private problem(problem: 'rate_limited' | 'unreachable' | null) {
		const t = this.t;
		this.banner.hidden = problem === null;
		this.banner.textContent = problem === 'rate_limited' ? t('tooMany') : problem ? t('unreachable') : '';
	}

	private scroll() {
		this.log.scrollTop = this.log.scrollHeight;
	}
}
