// The widget chat's state (widget/src/chat/state.ts) and its store: the one place the chat's state is written.
// Pure, so it runs here; the browser tests drive the same paths through the real panel and Worker.
import { describe, expect, it } from 'vitest';
import type { Conversation, Message } from '../../widget/src/api-types';
import {
	type Action,
	type ChatState,
	composerMode,
	initialState,
	lastMessage,
	type Pending,
	reduce,
	unreadTotal,
} from '../../widget/src/chat/state';
import { Store } from '../../widget/src/chat/store';

const conversation = (id: string, status = 'open', unread = 0, lastMessageSeq = 0): Conversation => ({
	id,
	status,
	lastMessageSeq,
	unread,
	createdAt: '2026-11-26T10:00:00Z',
	lastMessageAt: null,
});

const message = (conversationId: string, seq: number, authorKind: Message['authorKind'], clientMessageId?: string) =>
	({
		id: `msg_${conversationId}_${seq}`,
		conversationId,
		seq,
		authorKind,
		authorId: null,
		text: `#${seq}`,
		attachments: [],
		interactive: null,
		clientMessageId: clientMessageId ?? null,
		private: false,
		createdAt: '2026-11-26T10:00:00Z',
	}) satisfies Message;

const pending = (clientMessageId: string, conversationId: string | null, extra: Partial<Pending> = {}): Pending => ({
	clientMessageId,
	text: clientMessageId,
	conversationId,
	at: 1,
	...extra,
});

const run = (state: ChatState, ...actions: Action[]) => actions.reduce(reduce, state);

/** The visitor's panel open on conversation `c1`, in view, the page visible. */
const onC1 = (status = 'open') =>
	run(
		initialState(false, true),
		{ type: 'adopt', conversations: [conversation('c1', status)] },
		{ type: 'show', conversation: conversation('c1', status), waiting: [], offline: false },
		{ type: 'open', open: true },
	);

describe('received', () => {
	it('shows a stored message once, whether from the socket or an HTTP answer', () => {
		const state = run(onC1(), { type: 'received', message: message('c1', 1, 'contact') });
		expect(reduce(state, { type: 'received', message: message('c1', 1, 'contact') })).toBe(state);
		expect(state.messages.map((m) => m.seq)).toEqual([1]);
	});

	it('ignores a message of a conversation that is not on screen (a late answer for the one before)', () => {
		const state = onC1();
		expect(reduce(state, { type: 'received', message: message('c2', 1, 'operator') })).toBe(state);
	});

	it("takes the visitor's sending copy away once the Worker stored it", () => {
		const state = run(
			onC1(),
			{ type: 'written', item: pending('a', 'c1'), details: {} },
			{ type: 'written', item: pending('b', 'c1'), details: {} },
			{ type: 'received', message: message('c1', 1, 'contact', 'a') },
		);
		expect(state.pending.map((p) => p.clientMessageId)).toEqual(['b']);
	});

	it('counts a team message as unread only when the visitor is not looking, and once per seq', () => {
		const closed = run(onC1(), { type: 'open', open: false });
		const cases: [string, ChatState, number][] = [
			['panel open on it', onC1(), 0],
			['panel closed', closed, 1],
			['page hidden', run(onC1(), { type: 'visibility', visible: false }), 1],
			['the list shown', run(onC1(), { type: 'list', show: true }), 1],
		];
		for (const [name, state, unread] of cases) {
			const after = run(state, { type: 'received', message: message('c1', 3, 'operator') });
			expect(after.unread.c1, name).toBe(unread);
		}
		// A gap fill after a reconnect brings what the session's snapshot already counted: not counted again.
		const counted = run(
			closed,
			{ type: 'adopt', conversations: [conversation('c1', 'open', 2, 5)] },
			{ type: 'received', message: message('c1', 5, 'operator') },
			{ type: 'received', message: message('c1', 6, 'bot') },
			{ type: 'received', message: message('c1', 7, 'contact') },
		);
		expect(counted.unread.c1).toBe(3);
		expect(unreadTotal(counted)).toBe(3);
	});

	it("ends the team's typing when the team's message comes", () => {
		const typing = run(onC1(), { type: 'typing', typing: true });
		expect(run(typing, { type: 'received', message: message('c1', 1, 'contact') }).teamTyping).toBe(true);
		expect(run(typing, { type: 'received', message: message('c1', 1, 'operator') }).teamTyping).toBe(false);
	});

	it('offers the question of the latest message by seq, whatever came last', () => {
		const state = run(
			onC1(),
			{ type: 'received', message: message('c1', 4, 'bot') },
			{ type: 'received', message: message('c1', 2, 'contact') },
		);
		expect(lastMessage(state)?.seq).toBe(4);
	});
});

describe('upload', () => {
	const upload = (progress: number) => ({ clientMessageId: 'up-1', name: 'tent.png', progress });

	it('shows a file on its way with its progress, until its stored message takes its place', () => {
		const open = run(initialState(false, true), {
			type: 'show',
			conversation: conversation('c1'),
			waiting: [],
			offline: false,
		});
		const going = run(open, { type: 'upload', upload: upload(0) }, { type: 'upload', upload: upload(0.5) });
		expect(going.uploads).toEqual([upload(0.5)]);
		const stored = run(going, { type: 'received', message: message('c1', 2, 'contact', 'up-1') });
		expect(stored.uploads).toEqual([]);
		// The upload's last progress report and its end, after the socket brought the message, change nothing.
		expect(run(stored, { type: 'upload', upload: upload(1) }, { type: 'upload', upload: upload(1), done: true })).toBe(
			stored,
		);
	});

	it('ends a refused upload, and forgets uploads when another conversation is shown', () => {
		const open = run(initialState(false, true), {
			type: 'show',
			conversation: conversation('c1'),
			waiting: [],
			offline: false,
		});
		const going = run(open, { type: 'upload', upload: upload(0) }, { type: 'upload', upload: upload(0.2) });
		expect(going.uploads).toEqual([upload(0.2)]);
		expect(run(going, { type: 'upload', upload: upload(1), done: true }).uploads).toEqual([]);
		const other = run(going, { type: 'show', conversation: conversation('c2'), waiting: [], offline: false });
		expect(other.uploads).toEqual([]);
	});
});

describe('show', () => {
	it('starts the conversation over: no messages, the waiting items of that conversation, busy until synced', () => {
		const waiting = [pending('a', 'c2'), pending('b', 'c1'), pending('c', null, { movedFrom: 'c2' })];
		const state = run(
			onC1(),
			{ type: 'received', message: message('c1', 1, 'operator') },
			{ type: 'show', conversation: conversation('c2'), waiting, offline: false },
		);
		expect(state.messages).toEqual([]);
		expect(state.pending.map((p) => p.clientMessageId)).toEqual(['a', 'c']);
		expect(state.busy).toBe(true);
		expect(run(state, { type: 'synced', live: true }).busy).toBe(false);
		const fresh = run(state, { type: 'show', conversation: null, waiting, offline: true });
		expect(fresh.pending.map((p) => p.clientMessageId)).toEqual(['c']);
		expect([fresh.busy, fresh.shownOffline]).toEqual([false, true]);
	});

	it('remembers that the visitor chose, so a late resume or identify does not switch the view', () => {
		const chosen = run(onC1(), { type: 'show', conversation: null, waiting: [], offline: false, chosen: true });
		expect(chosen.chosen).toBe(true);
		expect(run(chosen, { type: 'show', conversation: null, waiting: [], offline: false }).chosen).toBe(true);
	});
});

describe('status', () => {
	it('marks only closed <-> open, on the listed copy and the one on screen alike', () => {
		const closed = onC1('closed');
		const reopened = run(closed, { type: 'status', id: 'c1', status: 'open' });
		expect([reopened.current?.status, reopened.conversations[0]?.status]).toEqual(['open', 'open']);
		expect(reopened.note).toEqual({ closed: false });
		// A stored message leaves a pending or snoozed conversation as it is: nothing changes, the same state.
		const snoozed = onC1('snoozed');
		expect(reduce(snoozed, { type: 'status', id: 'c1', status: 'open' })).toBe(snoozed);
		const open = onC1();
		expect(reduce(open, { type: 'status', id: 'c1', status: 'open' })).toBe(open);
	});

	it('says it under the conversation only when that conversation is in view', () => {
		const listing = run(onC1(), { type: 'list', show: true }, { type: 'status', id: 'c1', status: 'closed' });
		expect(listing.current?.status).toBe('closed');
		expect(listing.note).toEqual({ closed: false });
		expect(run(onC1(), { type: 'status', id: 'c1', status: 'closed' }).note).toEqual({ closed: true });
	});

	it('hides the composer of a closed conversation only when writing does not reopen it', () => {
		const closed = onC1('closed');
		expect(composerMode(closed, { offline: false, reopens: true })).toBe('chat');
		expect(composerMode(closed, { offline: false, reopens: false })).toBe('closed');
		const fresh = run(closed, { type: 'show', conversation: null, waiting: [], offline: true });
		expect(composerMode(fresh, { offline: true, reopens: false })).toBe('offline');
	});
});

describe('the visitor', () => {
	it('a refused message replaces its sending copy in place; one not on screen is not shown', () => {
		const state = run(
			onC1(),
			{ type: 'written', item: pending('a', 'c1'), details: {} },
			{ type: 'written', item: pending('b', 'c1'), details: {} },
			{ type: 'refused', item: pending('a', 'c1', { failed: 'too long', failedStatus: 422 }) },
			{ type: 'refused', item: pending('z', 'c9', { failed: 'gone', failedStatus: 404 }) },
		);
		expect(state.pending.map((p) => [p.clientMessageId, p.failedStatus])).toEqual([
			['a', 422],
			['b', undefined],
		]);
		expect(run(state, { type: 'discarded', clientMessageId: 'a' }).pending).toHaveLength(1);
	});

	it('a reset forgets the visitor; a lost session only its conversations', () => {
		const known = run(
			onC1(),
			{ type: 'identity', identity: { email: 'ada@example.com' } },
			{ type: 'written', item: pending('a', 'c1'), details: { name: 'Ada' } },
			{ type: 'known', details: { email: 'ada@example.com' } },
		);
		expect(known.known).toEqual({ name: 'Ada', email: 'ada@example.com' });
		const lost = reduce(known, { type: 'lost' });
		expect([lost.conversations, lost.unread, lost.known, lost.touched]).toEqual([[], {}, known.known, true]);
		const reset = reduce(known, { type: 'reset' });
		expect(reset.generation).toBe(known.generation + 1);
		expect([reset.known, reset.identity, reset.touched, reset.chosen]).toEqual([{}, undefined, false, false]);
	});
});

describe('Store', () => {
	it('tells every subscriber of every action in order, also of those a subscriber dispatches', () => {
		const store = new Store(onC1());
		const seen: string[][] = [[], []];
		store.subscribe((_, __, action) => {
			seen[0]?.push(action.type);
			if (action.type === 'received') store.dispatch({ type: 'read', id: 'c1' });
		});
		store.subscribe((state, previous, action) => {
			seen[1]?.push(action.type);
			if (action.type === 'read') expect(previous.messages).toHaveLength(1);
			if (action.type === 'received') expect(state).not.toBe(previous);
		});
		store.dispatch({ type: 'received', message: message('c1', 1, 'operator') });
		expect(seen).toEqual([
			['received', 'read'],
			['received', 'read'],
		]);
		expect(store.state.messages).toHaveLength(1);
	});
});
