/**
 * One conversation's messages as the console shows them: the newest page first (the socket's backlog from a
 * little before the end), earlier pages on demand over HTTP, live messages each once by `seq`, who is typing,
 * and an outbox that loses nothing: a reply is kept (in this browser's storage) until the room acknowledges
 * it, and re-sent with the same client id, which the room deduplicates, whenever the socket is back.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../api/client';
import { messagesBefore } from '../data/conversations';
import { type LiveSocket, openLive } from '../live';

/** A message as the team reads it: those read over HTTP say where the mail carrying them stands. */
export type Message = Schemas['TeamMessage'];
/** A message the room refused for good (too long, not allowed): shown with why, kept on screen until dismissed. */
export interface Refused extends Pending {
	reason: string;
	/** The room's status code: 409 into a WhatsApp conversation is its closed 24-hour window. */
	status: number;
	/** When it was refused (this browser's clock): a customer's message after it opens the window again. */
	at: number;
}

export interface Pending {
	clientMessageId: string;
	text: string;
	/** A private note to the team (the visitor never sees it). */
	private?: boolean;
}

/** How many of the newest messages a conversation opens with; earlier ones come a page at a time. */
const OPENING_PAGE = 50;

function outboxKey(id: string) {
	return `parley.outbox.${id}`;
}
function readOutbox(id: string): Pending[] {
	try {
		return JSON.parse(localStorage.getItem(outboxKey(id)) ?? '[]') as Pending[];
	} catch {
		return [];
	}
}
function writeOutbox(id: string, pending: Pending[]) {
	if (pending.length === 0) localStorage.removeItem(outboxKey(id));
	else localStorage.setItem(outboxKey(id), JSON.stringify(pending));
}

/** The socket frame that sends (or re-sends, with the same client id) an item of the outbox. */
function messageFrame(item: Pending) {
	return {
		type: 'message',
		text: item.text,
		clientMessageId: item.clientMessageId,
		...(item.private ? { private: true } : {}),
	};
}

export function useConversationLive(id: string, lastMessageSeq: number | undefined) {
	const [messages, setMessages] = useState<Message[]>([]);
	const [pending, setPending] = useState<Pending[]>(() => readOutbox(id));
	const [visitorTyping, setVisitorTyping] = useState(false);
	const [teamTyping, setTeamTyping] = useState<string[]>([]);
	// How far the visitor has read (its read receipts), to show "Seen" under the team's last message it read.
	const [visitorRead, setVisitorRead] = useState(0);
	const [error, setError] = useState<unknown>(null);
	const [refused, setRefused] = useState<Refused[]>([]);
	const [earliest, setEarliest] = useState<number | null>(null);
	const [loadingEarlier, setLoadingEarlier] = useState(false);
	const socket = useRef<LiveSocket | null>(null);
	const lastSeq = useRef(0);
	const pendingRef = useRef(pending);
	pendingRef.current = pending;
	const opened = lastMessageSeq !== undefined;

	useEffect(() => {
		if (!opened) return;
		lastSeq.current = Math.max(0, (lastMessageSeq ?? 0) - OPENING_PAGE);
		setEarliest(lastSeq.current + 1);
		const typingTimers = new Map<string, ReturnType<typeof setTimeout>>();
		const typingFor = (who: string, typing: boolean) => {
			clearTimeout(typingTimers.get(who));
			if (who === 'contact') setVisitorTyping(typing);
			else setTeamTyping((all) => (typing ? [...new Set([...all, who])] : all.filter((o) => o !== who)));
			// A "stopped" frame can be lost with a closed tab: typing fades by itself.
			if (typing)
				typingTimers.set(
					who,
					setTimeout(() => typingFor(who, false), 6000),
				);
		};
		const live = openLive(() => `/v3/conversations/${id}/live?after=${lastSeq.current}`, {
			onOpen() {
				for (const item of pendingRef.current) live.send(messageFrame(item));
			},
			onFrame(frame) {
				if (frame.type === 'message' || frame.type === 'ack') {
					const message = frame.message as Message;
					if (message.seq > lastSeq.current) {
						lastSeq.current = message.seq;
						setMessages((all) => [...all, message]);
					}
					if (message.authorKind === 'contact') typingFor('contact', false);
					// Stored: the ack says so, and so does the message itself when its broadcast comes first (it
					// carries our client id), so the page never shows it twice, stored and still sending.
					const settled =
						frame.type === 'ack'
							? (frame.clientMessageId as string)
							: (message as { clientMessageId?: string | null }).clientMessageId;
					if (settled && pendingRef.current.some((p) => p.clientMessageId === settled)) {
						setPending((all) => {
							const left = all.filter((p) => p.clientMessageId !== settled);
							writeOutbox(id, left);
							return left;
						});
					}
				} else if (frame.type === 'synced') {
					// A backlog is at most 500 messages: the rest comes with a new connection after the last one here.
					if (frame.complete === false) live.reconnect();
					else markRead();
				} else if (frame.type === 'read' && frame.reader === 'contact') {
					setVisitorRead((before) => Math.max(before, Number(frame.seq) || 0));
				} else if (frame.type === 'typing') {
					typingFor(frame.author === 'contact' ? 'contact' : String(frame.operatorId), frame.typing === true);
				} else if (frame.type === 'error') {
					const failedId = typeof frame.clientMessageId === 'string' ? frame.clientMessageId : null;
					const item = pendingRef.current.find((p) => p.clientMessageId === failedId);
					const status = Number(frame.statusCode);
					// A refusal for what the message is (too long, not allowed) is final; a rate limit, a fault of ours,
					// or a credential that is gone (until the operator signs in again) is not.
					const final = status >= 400 && status < 500 && status !== 429 && status !== 401;
					if (item && !final) {
						// It stays in the outbox and goes again a little later.
						setTimeout(() => live.send(messageFrame(item)), 5000);
					} else if (item) {
						// Refused for good: out of the outbox (or it would go again forever), still on screen with why.
						setPending((all) => {
							const left = all.filter((p) => p.clientMessageId !== failedId);
							writeOutbox(id, left);
							return left;
						});
						setRefused((all) => [...all, { ...item, reason: String(frame.message), status, at: Date.now() }]);
					} else setError(new Error(String(frame.message)));
				}
			},
		});
		socket.current = live;
		return () => {
			for (const timer of typingTimers.values()) clearTimeout(timer);
			live.close();
		};
	}, [id, opened]);

	function markRead() {
		if (document.hasFocus() && lastSeq.current > 0) socket.current?.send({ type: 'read', seq: lastSeq.current });
	}

	const send = (text: string, options: { private: boolean } = { private: false }) => {
		const item: Pending = { clientMessageId: crypto.randomUUID(), text, ...(options.private ? { private: true } : {}) };
		const next = [...pendingRef.current, item];
		writeOutbox(id, next);
		setPending(next);
		socket.current?.send(messageFrame(item));
	};
	const typing = () => socket.current?.send({ type: 'typing', typing: true });

	/**
	 * The page of messages just before the earliest shown. Stable across renders, and one at a time: the
	 * in-flight mark is a ref, since two calls in the same tick would both see the state from before either.
	 */
	const earliestRef = useRef(earliest);
	earliestRef.current = earliest;
	const loadingRef = useRef(false);
	const loadEarlier = useCallback(async () => {
		const before = earliestRef.current;
		if (before === null || before <= 1 || loadingRef.current) return;
		loadingRef.current = true;
		setLoadingEarlier(true);
		try {
			const page = await messagesBefore(id, before, OPENING_PAGE);
			setMessages((all) => [...page.data, ...all]);
			setEarliest(page.data[0]?.seq ?? 1);
		} catch (caught) {
			setError(caught);
		} finally {
			loadingRef.current = false;
			setLoadingEarlier(false);
		}
	}, [id]);

	return {
		messages,
		pending,
		visitorTyping,
		teamTyping,
		visitorRead,
		refused,
		dismissRefused: (clientMessageId: string) =>
			setRefused((all) => all.filter((r) => r.clientMessageId !== clientMessageId)),
		error,
		send,
		typing,
		markRead,
		loadEarlier,
		hasEarlier: earliest !== null && earliest > 1,
		loadingEarlier,
	};
}
