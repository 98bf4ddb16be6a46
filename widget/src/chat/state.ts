/**
 * The chat's state as plain data, and the one function that changes it. Everything the panel shows and every
 * decision the effects take from what happened before is here; `reduce` is pure (no DOM, no storage, no
 * clock), so what the environment knows (the outbox's items, being offline, the page's visibility) comes in
 * the actions. The view (view.ts) draws from it; the effects (live.ts, sending.ts, session.ts) dispatch.
 */
import type { Conversation, Details, Message } from '../api-types';
import type { Identity } from '../commands';

/** A message of the visitor's not stored yet, as the outbox keeps it (outbox.ts). */
export interface Pending {
	clientMessageId: string;
	text: string;
	/** null: this message starts a new conversation (with the pre-chat values). */
	conversationId: string | null;
	details?: Details;
	customFields?: Record<string, string>;
	/** The Worker refused it for good (a 4xx): its status and message; kept, shown, until discarded. */
	failed?: string;
	failedStatus?: number;
	/** When it was written: the sending order. */
	at: number;
	/**
	 * The conversation it was written in, closed meanwhile in a workspace whose visitors start a new one (a 409):
	 * it starts that new one instead.
	 */
	movedFrom?: string;
}

export type Problem = 'rate_limited' | 'unreachable';

/** A file of the visitor's on its way to the conversation shown: its name and the fraction sent. */
export interface Upload {
	clientMessageId: string;
	name: string;
	progress: number;
}

/** What is said below the messages: a conversation's status (the closed note), or a failed upload's error. */
export type Note = { closed: boolean } | { uploadFailed: string };

export interface ChatState {
	/** The visitor's conversations, as the Worker last listed them and its answers since told. */
	conversations: Conversation[];
	/** The conversation shown; null for a new one (started by the first message sent). */
	current: Conversation | null;
	/** Bumped each time a conversation is shown anew: the log is redrawn and its socket starts over. */
	shown: number;
	view: 'conversation' | 'list';
	open: boolean;
	pageVisible: boolean;
	/** The stored messages of the conversation shown, each seq once, in the order they came. */
	messages: Message[];
	/** The visitor's messages on screen not stored yet (sending, or refused), in the order they were shown. */
	pending: Pending[];
	/** The socket's backlog has arrived: what comes now is new. */
	synced: boolean;
	/** The history of the conversation shown is still coming (announced as one block once it is in). */
	busy: boolean;
	teamTyping: boolean;
	/** Whether the team was offline when the conversation was drawn: its form depends on it. */
	shownOffline: boolean;
	/** The new conversation on screen was started while the team was offline: it answers by e-mail. */
	sentOffline: boolean;
	note: Note;
	/** The visitor's files being sent into the conversation shown, with their progress. */
	uploads: Upload[];
	problem: Problem | null;
	/** What the visitor told (the form, `identify`), asked no more and given to a conversation they start. */
	known: Details;
	/** What the page last said of the visitor, said again to a new session if this one is lost. */
	identity?: Identity;
	/** The visitor sent something on this page: the view is theirs, a late resume does not switch it. */
	touched: boolean;
	/** The visitor picked a conversation (or a new one) from the list: identify does not switch it either. */
	chosen: boolean;
	/** Unseen team messages per conversation, for the badge and the list. */
	unread: Record<string, number>;
	/** Per conversation, the highest seq already counted: a message counts once, live or in a gap. */
	counted: Record<string, number>;
	/** Bumped by a reset: work begun for the previous visitor is dropped when it sees another number. */
	generation: number;
}

export type Action =
	/** Show `conversation` (null: a new one). `waiting`: the outbox's items, `offline`: the team's state now. */
	| { type: 'show'; conversation: Conversation | null; waiting: Pending[]; offline: boolean; chosen?: boolean }
	/** The new conversation on screen was started by its first message: keep the view, go live. */
	| { type: 'follow'; conversation: Conversation; offline: boolean }
	/** A conversation was started by a message: listed, and nothing in it is unread. */
	| { type: 'started'; conversation: Conversation }
	/** The Worker's list of the visitor's conversations (with unread counts), taken as the truth. */
	| { type: 'adopt'; conversations: Conversation[] }
	/** A stored message, from the socket or an HTTP answer. */
	| { type: 'received'; message: Message }
	/** The visitor wrote `item` (shown at once as sending); `details`: the form's values. */
	| { type: 'written'; item: Pending; details: Details }
	| { type: 'refused'; item: Pending }
	| { type: 'discarded'; clientMessageId: string }
	/** The Worker's answer told conversation `id`'s status. */
	| { type: 'status'; id: string; status: 'open' | 'closed' }
	/** The workspace may have changed what writing on a closed conversation does: say it again. */
	| { type: 'restatus' }
	| { type: 'uploadFailed'; message: string }
	/** A file's upload began, moved on (`progress`), or ended (`done`: stored, or refused with uploadFailed). */
	| { type: 'upload'; upload: Upload; done?: boolean }
	| { type: 'synced'; live: boolean }
	| { type: 'typing'; typing: boolean }
	| { type: 'read'; id: string }
	| { type: 'problem'; problem: Problem | null }
	| { type: 'list'; show: boolean }
	| { type: 'open'; open: boolean }
	| { type: 'visibility'; visible: boolean }
	| { type: 'identity'; identity: Identity }
	| { type: 'known'; details: Details }
	/** The session was lost: its conversations are out of reach. */
	| { type: 'lost' }
	/** A new visitor (`reset`): nothing of the previous one is kept. */
	| { type: 'reset' };

export function initialState(touched: boolean, pageVisible: boolean): ChatState {
	return {
		conversations: [],
		current: null,
		shown: 0,
		view: 'conversation',
		open: false,
		pageVisible,
		messages: [],
		pending: [],
		synced: false,
		busy: false,
		teamTyping: false,
		shownOffline: false,
		sentOffline: false,
		note: { closed: false },
		uploads: [],
		problem: null,
		known: {},
		touched,
		chosen: false,
		unread: {},
		counted: {},
		generation: 0,
	};
}

export function reduce(state: ChatState, action: Action): ChatState {
	switch (action.type) {
		case 'show': {
			const current = action.conversation;
			return {
				...state,
				view: 'conversation',
				current,
				shown: state.shown + 1,
				messages: [],
				pending: action.waiting.filter((item) => isShown(current, item)),
				synced: false,
				busy: current !== null,
				teamTyping: false,
				shownOffline: action.offline,
				sentOffline: false,
				note: { closed: current?.status === 'closed' },
				uploads: [],
				chosen: state.chosen || action.chosen === true,
			};
		}
		case 'follow':
			return { ...state, current: action.conversation, sentOffline: action.offline };
		case 'started': {
			const { conversation } = action;
			const listed = state.conversations.some((c) => c.id === conversation.id);
			return {
				...state,
				conversations: listed ? state.conversations : [conversation, ...state.conversations],
				unread: { ...state.unread, [conversation.id]: 0 },
			};
		}
		case 'adopt': {
			const unread: Record<string, number> = {};
			const counted = { ...state.counted };
			for (const c of action.conversations) {
				unread[c.id] = c.unread;
				counted[c.id] = Math.max(counted[c.id] ?? 0, c.lastMessageSeq);
			}
			return { ...state, conversations: action.conversations, unread, counted };
		}
		case 'received':
			return received(state, action.message);
		case 'written':
			return {
				...state,
				touched: true,
				known: { ...state.known, ...action.details },
				pending: [...state.pending, action.item],
			};
		case 'refused': {
			const { item } = action;
			if (!isShown(state.current, item)) return state;
			// Shown where its sending copy was (the view replaces that element in place), or last.
			const there = state.pending.some((p) => p.clientMessageId === item.clientMessageId);
			return { ...state, pending: there ? replaced(state.pending, item) : [...state.pending, item] };
		}
		case 'discarded':
			return { ...state, pending: state.pending.filter((p) => p.clientMessageId !== action.clientMessageId) };
		case 'status':
			return statusLearned(state, action.id, action.status);
		case 'restatus':
			return state.current && state.view === 'conversation'
				? { ...state, note: { closed: state.current.status === 'closed' } }
				: state;
		case 'uploadFailed':
			return { ...state, note: { uploadFailed: action.message } };
		case 'upload': {
			const { upload } = action;
			const others = state.uploads.filter((u) => u.clientMessageId !== upload.clientMessageId);
			const known = others.length < state.uploads.length;
			// A progress report of an upload already ended (or of a conversation no longer shown) changes nothing.
			if (action.done) return known ? { ...state, uploads: others } : state;
			if (!known && upload.progress > 0) return state;
			return {
				...state,
				uploads: state.uploads
					.map((u) => (u.clientMessageId === upload.clientMessageId ? upload : u))
					.concat(known ? [] : [upload]),
			};
		}
		case 'synced':
			return { ...state, synced: action.live, busy: state.busy && !action.live };
		case 'typing':
			return { ...state, teamTyping: action.typing };
		case 'read':
			return { ...state, unread: { ...state.unread, [action.id]: 0 } };
		case 'problem':
			return { ...state, problem: action.problem };
		case 'list':
			return { ...state, view: action.show ? 'list' : 'conversation' };
		case 'open':
			return { ...state, open: action.open };
		case 'visibility':
			return { ...state, pageVisible: action.visible };
		case 'identity':
			return { ...state, identity: action.identity };
		case 'known':
			return { ...state, known: { ...state.known, ...action.details } };
		case 'lost':
			return { ...state, conversations: [], unread: {}, counted: {} };
		case 'reset':
			return {
				...state,
				generation: state.generation + 1,
				conversations: [],
				unread: {},
				counted: {},
				known: {},
				identity: undefined,
				touched: false,
				chosen: false,
				problem: null,
			};
	}
}

/** A stored message is shown once (by seq) and only on its own conversation; an unseen team message counts. */
function received(state: ChatState, message: Message): ChatState {
	if (message.conversationId !== state.current?.id || state.messages.some((m) => m.seq === message.seq)) {
		return state;
	}
	const next = {
		...state,
		messages: [...state.messages, message],
		// The visitor's own message, stored, takes its sending copy's place (a file's upload, too).
		pending: message.clientMessageId
			? state.pending.filter((p) => p.clientMessageId !== message.clientMessageId)
			: state.pending,
		uploads: message.clientMessageId
			? state.uploads.filter((u) => u.clientMessageId !== message.clientMessageId)
			: state.uploads,
	};
	if (message.authorKind === 'contact') return next;
	const id = message.conversationId;
	next.teamTyping = false;
	if (message.seq <= (state.counted[id] ?? 0)) return next;
	next.counted = { ...state.counted, [id]: message.seq };
	if (!visible(state)) next.unread = { ...state.unread, [id]: (state.unread[id] ?? 0) + 1 };
	return next;
}

/**
 * What the Worker's answer says of conversation `id`'s status: open after it stored a visitor's message (one
 * on a closed conversation reopened it, or it would have been a 409), closed after a 409. The listed copy and
 * the one on screen agree; the note changes only when that conversation is in view. Unchanged state when
 * nothing changed (the sender asks the Worker again only then).
 */
function statusLearned(state: ChatState, id: string, status: 'open' | 'closed'): ChatState {
	// Only closed <-> open: a stored message leaves a pending or snoozed conversation as it is.
	const mark = (c: Conversation): Conversation =>
		c.id === id && (status === 'open' ? c.status === 'closed' : c.status !== 'closed') ? { ...c, status } : c;
	const conversations = state.conversations.map(mark);
	const current = state.current && mark(state.current);
	const changed = current !== state.current || conversations.some((c, i) => c !== state.conversations[i]);
	if (!changed) return state;
	const inView = current?.id === id && state.view === 'conversation';
	return { ...state, conversations, current, note: inView ? { closed: status === 'closed' } : state.note };
}

function replaced(items: Pending[], item: Pending): Pending[] {
	return items.map((p) => (p.clientMessageId === item.clientMessageId ? item : p));
}

/** The item is on screen: in the conversation shown, or moved from it to a new one not shown yet. */
export function isShown(current: Conversation | null, item: Pending): boolean {
	return item.conversationId === (current?.id ?? null) || (!!item.movedFrom && item.movedFrom === current?.id);
}

/** The visitor is looking at the conversation: what arrives now is seen. */
export function visible(state: ChatState): boolean {
	return state.open && state.view === 'conversation' && state.pageVisible;
}

/** What the workspace's config and the clock say right now (read from the loader, passed in). */
export interface Conditions {
	offline: boolean;
	/** Writing on a closed conversation reopens it (the Worker's default), rather than being refused (409). */
	reopens: boolean;
}

/** The composer: hidden on a closed conversation that does not reopen, "leave a message" for a new one offline. */
export function composerMode(state: ChatState, { offline, reopens }: Conditions): 'chat' | 'offline' | 'closed' {
	if (state.current?.status === 'closed' && !reopens) return 'closed';
	return offline && !state.current ? 'offline' : 'chat';
}

/** The latest stored message shown, whose question (buttons, an input) the composer offers. */
export function lastMessage(state: ChatState): Message | undefined {
	let last: Message | undefined;
	for (const m of state.messages) if (!last || m.seq > last.seq) last = m;
	return last;
}

export function unreadTotal(state: ChatState): number {
	return Object.values(state.unread).reduce((sum, count) => sum + count, 0);
}
