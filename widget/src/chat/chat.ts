/**
 * The chat panel, imported by the loader the first time it is needed. It shows one conversation at a time
 * (the visitor's latest open one, or a new one), lists the earlier ones, keeps the conversation's socket,
 * and sends through the outbox so nothing typed is lost.
 *
 * This file only wires, one way: the state (state.ts) is changed only by actions dispatched to the store
 * (store.ts); the view (view.ts) draws it and turns what the visitor does into intents; the effects (live.ts:
 * the socket, sending.ts: the outbox's path, session.ts: resuming, identifying, a lost session) talk to the
 * Worker and dispatch what they learn. It answers the loader (host.ts's `Chat`).
 */
import type { Identity } from '../commands';
import type { Chat, ChatHost } from '../host';
import { translator } from '../i18n';
import { fileOpener } from './attachments';
import { VisitorClient } from './client';
import { type ChatContext, conditions, show } from './context';
import { keepLive } from './live';
import { Outbox } from './outbox';
import { outboxEvents, send, sendFile } from './sending';
import { SessionKeeper } from './session';
import { initialState, unreadTotal } from './state';
import { Store } from './store';
import { ChatView } from './view';
import { CHAT_WORDS } from './words';

export function mountChat(host: ChatHost): Chat {
	return new ChatPanel(host);
}

class ChatPanel implements Chat {
	private readonly ctx: ChatContext;
	private readonly view: ChatView;
	private readonly session: SessionKeeper;

	constructor(private readonly host: ChatHost) {
		const client = new VisitorClient(host.api, host.workspaceId, host.visit);
		// The outbox's answers need the store, and the store's first state needs the outbox's items: the context
		// reaches both through getters, read only once both exist.
		let store: Store | undefined;
		let outbox: Outbox | undefined;
		const ctx: ChatContext = {
			client,
			host,
			get store() {
				if (!store) throw new Error('the chat is not built yet');
				return store;
			},
			get outbox() {
				if (!outbox) throw new Error('the chat is not built yet');
				return outbox;
			},
		};
		outbox = new Outbox(client, host.workspaceId, () => host.origin(), outboxEvents(ctx));
		const touched = outbox.items.some((item) => item.conversationId === null && !item.failed);
		store = new Store(initialState(touched, document.visibilityState === 'visible'));
		this.ctx = ctx;
		const session = new SessionKeeper(ctx);
		this.session = session;
		client.onSessionLost = () => session.lost();
		const openFile = fileOpener((conversationId, fileId) => client.file(conversationId, fileId));
		this.view = new ChatView(
			host,
			translator(CHAT_WORDS, host.locale),
			() => conditions(host),
			{
				send: (text, values) => send(ctx, text, values),
				sendFile: (file) => sendFile(ctx, file),
				files: openFile,
				typing: (typing) => sendTyping(typing),
				discard: (item) => {
					ctx.outbox.discard(item.clientMessageId);
					ctx.store.dispatch({ type: 'discarded', clientMessageId: item.clientMessageId });
				},
				pick: (conversation) => show(ctx, conversation, true),
				list: (show) => ctx.store.dispatch({ type: 'list', show }),
			},
			store.state,
		);
		const view = this.view;
		store.subscribe((state, previous) => view.render(state, previous));
		const sendTyping = keepLive(ctx, () => session.probe());
		store.subscribe((state, previous) => {
			if (state.unread !== previous.unread) host.setUnread(unreadTotal(state));
		});
		document.addEventListener('visibilitychange', () =>
			ctx.store.dispatch({ type: 'visibility', visible: document.visibilityState === 'visible' }),
		);
		this.refresh();
		show(ctx, null);
		if (client.hasSession || outbox.items.length > 0) session.resume();
		// Told by the loader before the chat was imported (usually with the session start: then no request here).
		const told = host.identity();
		if (told) this.identify(told).catch(() => {});
	}

	open(prefill?: string, focus = true): void {
		const { store } = this.ctx;
		if (prefill !== undefined) {
			if (store.state.view === 'list') store.dispatch({ type: 'list', show: false });
			this.view.prefill(prefill);
		}
		store.dispatch({ type: 'open', open: true });
		if (focus) this.view.focusInside();
		this.view.scroll();
	}

	close(): void {
		this.ctx.store.dispatch({ type: 'open', open: false });
	}

	identify(identity: Identity): Promise<void> {
		return this.session.identify(identity);
	}

	async reset(): Promise<void> {
		this.session.stop();
		// Forgotten here first: a logout usually navigates away at once, before any answer could arrive.
		this.ctx.client.end();
		this.ctx.outbox.clear();
		this.ctx.store.dispatch({ type: 'reset' });
		show(this.ctx, null);
	}

	refresh(configChanged = true): void {
		const { store } = this.ctx;
		this.view.refresh();
		const state = store.state;
		// A new conversation's form depends on the fields and on being offline; redraw it when they change.
		const redraw = configChanged || state.shownOffline !== conditions(this.host).offline;
		if (redraw && !state.current && state.view === 'conversation' && this.view.attached) show(this.ctx, null);
		// The workspace may have changed what writing on a closed conversation does.
		if (configChanged && state.current && state.view === 'conversation') store.dispatch({ type: 'restatus' });
	}
}
