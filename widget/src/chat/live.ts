/**
 * The socket of the conversation on screen, as an effect of the state: started over whenever a conversation
 * is shown anew (or a new one goes live), its messages dispatched (the store shows each once and counts the
 * unseen), the team's typing shown for at most 6 s, and one read receipt up to what the visitor has seen.
 */
import { LiveConversation } from './client';
import type { ChatContext } from './context';
import { visible } from './state';

/**
 * Keeps the socket of the conversation the state shows; `trouble`: it keeps failing (see LiveConversation).
 * Returns what sends the visitor's typing on it.
 */
export function keepLive(ctx: ChatContext, trouble: () => void): (typing: boolean) => void {
	const { store, client } = ctx;
	let live: LiveConversation | undefined;
	let showing = '';
	let readSent = 0;
	let typingTimer: ReturnType<typeof setTimeout> | undefined;

	/** The visitor sees the conversation: one read receipt up to its last message. */
	const markRead = () => {
		const state = store.state;
		const conversation = state.current;
		const seq = live?.seq ?? 0;
		if (!conversation || !visible(state) || !state.synced || seq <= readSent) return;
		readSent = seq;
		if (!live?.send({ type: 'read', seq })) {
			client.call('POST', `/conversations/${conversation.id}/read`, { seq }).catch(() => {});
		}
		// Nothing to clear in the usual case (the visitor was looking): no action, so no redraw per message.
		if (state.unread[conversation.id]) store.dispatch({ type: 'read', id: conversation.id });
	};

	store.subscribe((state, previous, action) => {
		// The log is drawn anew from the socket's backlog, so the socket starts anew (from seq 0) too.
		const now = `${state.shown}:${state.current?.id ?? ''}`;
		if (now !== showing) {
			showing = now;
			live?.stop();
			readSent = 0;
			const id = state.current?.id;
			live =
				id === undefined
					? undefined
					: new LiveConversation(client, id, 0, {
							message: (message) => store.dispatch({ type: 'received', message }),
							frame: (frame) => {
								if (frame.type === 'synced') markRead();
								else if (frame.type === 'typing' && frame.author === 'operator') {
									clearTimeout(typingTimer);
									store.dispatch({ type: 'typing', typing: frame.typing });
									if (frame.typing) {
										typingTimer = setTimeout(() => store.dispatch({ type: 'typing', typing: false }), 6000);
									}
								}
							},
							status: (synced) => store.dispatch({ type: 'synced', live: synced }),
							trouble,
						});
		}
		// Read when the visitor comes to look, or when something new arrives while they look.
		if (action.type === 'visibility' || (action.type === 'open' && action.open)) markRead();
		if (action.type === 'received' && state !== previous && state.synced) markRead();
	});

	return (typing) => live?.send({ type: 'typing', typing });
}
