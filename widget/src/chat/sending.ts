/**
 * The sending path: what the visitor writes goes on screen and into the outbox at once, and the Worker's
 * answers come back here as actions: a stored message (which may have started or reopened a conversation), a
 * refusal, or a conversation found closed.
 */
import type { Conversation, Message } from '../api-types';
import { type ChatContext, conditions, show } from './context';
import type { FormValues } from './fields';
import type { OutboxEvents } from './outbox';
import { composerMode, isShown, type Pending } from './state';

/** What the outbox's answers do to the state. */
export function outboxEvents(ctx: ChatContext): OutboxEvents {
	// `ctx` is read only when an answer comes: the outbox is built before the context is complete.
	return {
		delivered: (item, message, started) => delivered(ctx, item, message, started),
		failed: (item) => ctx.store.dispatch({ type: 'refused', item }),
		changed: (problem) => ctx.store.dispatch({ type: 'problem', problem }),
		details: () => ctx.store.state.known,
		closed: (id) => ctx.store.dispatch({ type: 'status', id, status: 'closed' }),
	};
}

/**
 * The composer's (or a bot's question's) text, with the pre-chat form's values for a new conversation: shown
 * as sending and given to the outbox; false if refused (the conversation is closed and does not reopen).
 */
export function send(ctx: ChatContext, text: string, values?: FormValues): boolean {
	const { current } = ctx.store.state;
	if (composerMode(ctx.store.state, conditions(ctx.host)) === 'closed') return false;
	const item: Pending = {
		clientMessageId: crypto.randomUUID(),
		text,
		conversationId: current?.id ?? null,
		at: Date.now(),
		...(current ? {} : (values ?? { details: {}, customFields: {} })),
	};
	ctx.store.dispatch({ type: 'written', item, details: values?.details ?? {} });
	ctx.outbox.add(item);
	return true;
}

/**
 * A file the visitor attached (or picked for a bot's file question), checked already: uploaded to the
 * conversation on screen with its progress shown (the Worker checks what it is again and stores it), then
 * shown like any message. A failure is said under the messages.
 */
export function sendFile(ctx: ChatContext, file: File): boolean {
	const { store, client, host } = ctx;
	const conversation = store.state.current;
	if (!conversation || composerMode(store.state, conditions(host)) === 'closed') return false;
	const clientMessageId = crypto.randomUUID();
	const query = new URLSearchParams({ name: file.name, clientMessageId });
	const upload = (progress: number, done?: boolean) =>
		store.dispatch({ type: 'upload', upload: { clientMessageId, name: file.name, progress }, done });
	upload(0);
	client
		.upload<Message>(`/conversations/${encodeURIComponent(conversation.id)}/files?${query}`, file, upload)
		.then((message) => {
			host.emit('message', message);
			store.dispatch({ type: 'received', message });
		})
		.catch((error: { message?: string }) => store.dispatch({ type: 'uploadFailed', message: error.message ?? '' }))
		.finally(() => upload(1, true));
	return true;
}

function delivered(ctx: ChatContext, item: Pending, message: Message, started: Conversation | null) {
	const { store, host } = ctx;
	if (started) {
		store.dispatch({ type: 'started', conversation: started });
		host.emit('conversation_started', started);
		const { current } = store.state;
		if (item.conversationId === null && !current) {
			store.dispatch({ type: 'follow', conversation: started, offline: conditions(host).offline });
		}
		// Moved from the closed conversation on screen (a 409): the visitor sees where it went.
		else if (item.conversationId === null && isShown(current, item)) show(ctx, started);
	} else {
		const before = store.state;
		store.dispatch({ type: 'status', id: message.conversationId, status: 'open' });
		if (store.state !== before) confirmStatus(ctx, message.conversationId);
	}
	host.emit('message', message);
	store.dispatch({ type: 'received', message });
}

/**
 * A message stored on a conversation shown closed is taken to have reopened it at once; the Worker has the
 * last word (the team may have closed it again after the message was written, or D1 may not have it yet).
 */
function confirmStatus(ctx: ChatContext, id: string) {
	const { store } = ctx;
	const generation = store.state.generation;
	ctx.client
		.conversations()
		.then(({ data }) => {
			const stored = data.find((c) => c.id === id);
			if (generation === store.state.generation && stored?.status === 'closed') {
				store.dispatch({ type: 'status', id, status: 'closed' });
			}
		})
		.catch(() => {});
}
