import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { t, when } from '../i18n';
import { type LiveSocket, openLive } from '../live';
import type { ConsoleSession } from '../session';
import { useShortcuts } from '../ui/hooks';
import { Problem } from '../ui/problem';

type Message = Schemas['Message'];
interface Pending {
	clientMessageId: string;
	text: string;
}

/** What the composer has sent and not yet seen acknowledged, per conversation: it survives a reload. */
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

/**
 * One conversation: its messages (backlog then live, from the conversation's socket, each once by seq), the
 * visitor's typing, read receipts, and a composer that loses nothing: a reply is kept (in this browser's
 * storage) until the room acknowledges it, and re-sent with the same client id, which the room deduplicates,
 * whenever the socket is back.
 */
export function ConversationView({ id, session }: { id: string; session: ConsoleSession }) {
	const client = useQueryClient();
	const conversation = useQuery({
		queryKey: ['conversation', id],
		queryFn: () => ok(api.GET('/v3/conversations/{id}', { params: { path: { id } } })),
	});
	const [messages, setMessages] = useState<Message[]>([]);
	const [pending, setPending] = useState<Pending[]>(() => readOutbox(id));
	const [visitorTyping, setVisitorTyping] = useState(false);
	const [draft, setDraft] = useState('');
	const [error, setError] = useState<unknown>(null);
	const socket = useRef<LiveSocket | null>(null);
	const lastSeq = useRef(0);
	const pendingRef = useRef(pending);
	pendingRef.current = pending;
	const bottom = useRef<HTMLDivElement>(null);
	const composer = useRef<HTMLTextAreaElement>(null);
	const typingSent = useRef(0);

	useEffect(() => {
		let typingTimer: ReturnType<typeof setTimeout> | undefined;
		const live = openLive(() => `/v3/conversations/${id}/live?after=${lastSeq.current}`, {
			onOpen() {
				for (const item of pendingRef.current)
					live.send({ type: 'message', text: item.text, clientMessageId: item.clientMessageId });
			},
			onFrame(frame) {
				if (frame.type === 'message' || frame.type === 'ack') {
					const message = frame.message as Message;
					if (message.seq > lastSeq.current) {
						lastSeq.current = message.seq;
						setMessages((all) => [...all, message]);
					}
					if (frame.type === 'ack') {
						const acked = frame.clientMessageId as string;
						setPending((all) => {
							const left = all.filter((p) => p.clientMessageId !== acked);
							writeOutbox(id, left);
							return left;
						});
					}
				} else if (frame.type === 'synced') {
					if (document.hasFocus() && lastSeq.current > 0) live.send({ type: 'read', seq: lastSeq.current });
				} else if (frame.type === 'typing' && frame.author === 'contact') {
					setVisitorTyping(frame.typing === true);
					clearTimeout(typingTimer);
					typingTimer = setTimeout(() => setVisitorTyping(false), 6000);
				} else if (frame.type === 'error') {
					setError(new Error(String(frame.message)));
				}
			},
		});
		socket.current = live;
		return () => {
			clearTimeout(typingTimer);
			live.close();
		};
	}, [id]);

	useEffect(() => {
		bottom.current?.scrollIntoView({ block: 'end' });
		if (document.hasFocus() && lastSeq.current > 0) socket.current?.send({ type: 'read', seq: lastSeq.current });
	}, [messages.length, pending.length]);

	const send = () => {
		const text = draft.trim();
		if (!text) return;
		const item = { clientMessageId: crypto.randomUUID(), text };
		const next = [...pendingRef.current, item];
		writeOutbox(id, next);
		setPending(next);
		setDraft('');
		socket.current?.send({ type: 'message', text, clientMessageId: item.clientMessageId });
	};
	const typing = () => {
		const now = Date.now();
		if (now - typingSent.current < 2000) return;
		typingSent.current = now;
		socket.current?.send({ type: 'typing', typing: true });
	};

	const change = useMutation({
		mutationFn: (body: { status?: 'open' | 'closed'; assigneeId?: string | null }) =>
			ok(api.PATCH('/v3/conversations/{id}', { params: { path: { id } }, body })),
		onSuccess: (updated) => {
			client.setQueryData(['conversation', id], updated);
			void client.invalidateQueries({ queryKey: ['conversations'] });
		},
	});
	const data = conversation.data;
	const closed = data?.status === 'closed';

	const assignToMe = () => change.mutate({ assigneeId: session.operator.id });
	const closeOrReopen = () => change.mutate({ status: closed ? 'open' : 'closed' });
	useShortcuts({ r: () => composer.current?.focus(), a: assignToMe, x: closeOrReopen });

	return (
		<section class="conversation" aria-label={id}>
			<header>
				<h2>{data ? (data.contactId ?? data.id) : id}</h2>
				{data && <span class="muted">{data.status}</span>}
				<button
					type="button"
					disabled={!data || data.assigneeId === session.operator.id || change.isPending}
					onClick={assignToMe}
				>
					{t('conversation.assignToMe')}
				</button>
				<button type="button" disabled={!data || change.isPending} onClick={closeOrReopen}>
					{closed ? t('conversation.reopen') : t('conversation.close')}
				</button>
			</header>
			{conversation.error && <Problem error={conversation.error} retry={() => conversation.refetch()} />}
			{change.error && <Problem error={change.error} />}
			{error !== null && <Problem error={error} />}
			<div class="messages" aria-live="polite">
				{messages.map((message) => (
					<MessageBubble key={message.id} message={message} />
				))}
				{pending.map((item) => (
					<div key={item.clientMessageId} class="message team pending">
						<div class="meta">{t('conversation.sending')}</div>
						{item.text}
					</div>
				))}
				<div ref={bottom} />
			</div>
			<div class="typing muted" aria-live="polite">
				{visitorTyping ? t('conversation.visitorTyping') : ''}
			</div>
			<form
				class="composer"
				onSubmit={(event) => {
					event.preventDefault();
					send();
				}}
			>
				<label class="visually-hidden" for="composer">
					{t('conversation.composer')}
				</label>
				<textarea
					id="composer"
					ref={composer}
					value={draft}
					placeholder={t('conversation.composer')}
					onInput={(e) => {
						setDraft(e.currentTarget.value);
						typing();
					}}
					onKeyDown={(e) => {
						if (e.key === 'Escape') e.currentTarget.blur();
						else if (e.key === 'Enter' && !e.shiftKey) {
							e.preventDefault();
							send();
						}
					}}
				/>
				<button class="primary" type="submit">
					{t('conversation.send')}
				</button>
			</form>
		</section>
	);
}

function MessageBubble({ message }: { message: Message }) {
	const team = message.authorKind !== 'contact';
	const choices = (message.interactive as { buttons?: Array<{ label: string }> } | null)?.buttons ?? [];
	return (
		<div class={`message${team ? ' team' : ''}`}>
			<div class="meta">
				{t(`author.${message.authorKind}` as 'author.contact')} · {when(message.createdAt)}
			</div>
			{message.text}
			{choices.length > 0 && (
				<div class="choices">
					{choices.map((choice) => (
						<span key={choice.label}>{choice.label}</span>
					))}
				</div>
			)}
		</div>
	);
}
