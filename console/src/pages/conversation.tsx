import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { namesItsFile } from '../../../src/model/files';
import { useConversation } from '../data/conversations';
import { type MessageMail, useConversationMail } from '../data/email';
import type { ConsoleSession } from '../data/session';
import type { MessageWhatsapp } from '../data/whatsapp';
import { contactLabel, operatorName, useDirectory } from '../data/workspace';
import { t, when } from '../i18n';
import { consoleAuthor, MessageText } from '../ui/message-text';
import { Problem } from '../ui/problem';
import { Composer } from './composer';
import { ContactPanel } from './contact-panel';
import { ConversationActions } from './conversation-actions';
import { type Message, useConversationLive } from './conversation-live';
import { MachineMailLine, MailParts, MailState } from './mail-message';
import { MessageAttachments } from './message-attachments';
import { ConversationOrigin, useWhatsappWindow, WhatsappState, WhatsappWindow } from './whatsapp-conversation';

/**
 * One conversation: its header and actions, its messages (newest first loaded, earlier ones as you scroll
 * up), who is typing, the composer, and beside it the contact. With `focusSeq` (a search hit), it opens at that
 * message: earlier pages are loaded until it is there, then it is scrolled to and marked.
 */
export function ConversationView({
	id,
	session,
	focusSeq,
}: {
	id: string;
	session: ConsoleSession;
	focusSeq?: number;
}) {
	const conversation = useConversation(id);
	const data = conversation.data;
	const live = useConversationLive(id, data?.lastMessageSeq);
	const directory = useDirectory();
	const newest = live.messages.at(-1)?.seq;
	const mail = useConversationMail(
		id,
		data ? Math.max(newest ?? 0, data.lastMessageSeq) : undefined,
		data?.channel === 'email',
		data?.channel === 'whatsapp',
	);
	const whatsapp = data?.channel === 'whatsapp';
	const waWindow = useWhatsappWindow(id, whatsapp, live.messages, live.refused, data?.lastMessageSeq);
	const mailOf = new Map(mail.mails.filter((m) => m.messageId).map((m) => [m.messageId, m]));
	// Machine mail (and any mail not posted) is a line of the thread at the time it came, never a message.
	const machine = mail.mails.filter((m) => !m.messageId);
	// Beside the conversation on a wide screen; on a narrow one it takes the conversation's place when asked for.
	const [showContact, setShowContact] = useState(() => matchMedia('(min-width: 1100px)').matches);
	const bottom = useRef<HTMLDivElement>(null);
	const top = useRef<HTMLDivElement>(null);
	const list = useRef<HTMLDivElement>(null);

	// New messages scroll into view and count as read while the page has focus. Opened at a search hit, the
	// view stays there: only a view already at its end follows new messages (the socket's catch-up may come after
	// the hit was shown, and used to take the view away from it).
	useEffect(() => {
		const box = list.current;
		const atEnd = !box || box.scrollHeight - box.scrollTop - box.clientHeight < 80;
		if (focusSeq === undefined || atEnd) bottom.current?.scrollIntoView({ block: 'end' });
		live.markRead();
	}, [newest, live.pending.length]);

	// Scrolling up to the first message shown loads the page before it, keeping what was on screen in place (else
	// the view would stay at the top, and load the next page, and the next).
	const shown = live.messages.length > 0;
	const { hasEarlier, loadEarlier } = live;
	useEffect(() => {
		const sentinel = top.current;
		const box = list.current;
		if (!sentinel || !box || !shown || !hasEarlier) return;
		const observer = new IntersectionObserver(async (entries) => {
			if (!entries.some((entry) => entry.isIntersecting)) return;
			const height = box.scrollHeight;
			await loadEarlier();
			requestAnimationFrame(() => {
				box.scrollTop += box.scrollHeight - height;
			});
		});
		observer.observe(sentinel);
		return () => observer.disconnect();
	}, [shown, hasEarlier, loadEarlier]);

	// A search hit's message: the pages before are loaded until it is among the messages, then it is shown.
	const firstSeq = live.messages[0]?.seq;
	const { loadingEarlier } = live;
	const focused = useRef<number | null>(null);
	useEffect(() => {
		if (focusSeq === undefined || firstSeq === undefined || focused.current === focusSeq) return;
		if (firstSeq > focusSeq && hasEarlier) {
			if (!loadingEarlier) void loadEarlier();
			return;
		}
		const found = list.current?.querySelector(`[data-found-seq="${focusSeq}"]`);
		if (!found) return;
		focused.current = focusSeq;
		found.scrollIntoView({ block: 'center' });
	}, [focusSeq, firstSeq, hasEarlier, loadingEarlier, loadEarlier]);

	// Before any receipt on this socket, a conversation the visitor has nothing unread in was read to its end.
	const readUpTo = Math.max(live.visitorRead, data && data.unreadByContact === 0 ? data.lastMessageSeq : 0);
	const seenSeq = [...live.messages]
		.reverse()
		.find((m) => m.authorKind !== 'contact' && !m.private && m.seq <= readUpTo)?.seq;
	const typingNames = live.teamTyping
		.filter((operatorId) => operatorId !== session.operator.id)
		.map((operatorId) => operatorName(directory.data, operatorId));

	return (
		<div class={`conversation-layout${showContact ? ' with-contact' : ''}`}>
			<section class="conversation" aria-label={t('conversation.label')}>
				<header>
					<div class="conversation-title">
						<h2>{data ? contactLabel(data.contact) : t('common.loading')}</h2>
						{data && (data.channel !== 'widget' || data.subject) && (
							<p class="conversation-subject muted" data-testid="conversation-subject">
								<span class={`channel ${data.channel}`}>
									{data.channel === 'whatsapp'
										? t('whatsapp.channel')
										: t(data.channel === 'email' ? 'mail.channel' : 'mail.otherChannel', { channel: data.channel })}
								</span>
								{data.subject && ` · ${data.subject}`}
							</p>
						)}
						{data && whatsapp && <ConversationOrigin origin={data.origin} />}
					</div>
					<button
						type="button"
						class="contact-toggle"
						aria-expanded={showContact}
						onClick={() => setShowContact(!showContact)}
					>
						{t('conversation.contact')}
					</button>
				</header>
				{data && <ConversationActions conversation={data} session={session} />}
				{conversation.error && <Problem error={conversation.error} retry={() => conversation.refetch()} />}
				{live.error !== null && <Problem error={live.error} />}
				<div class="messages" aria-live="polite" ref={list}>
					<div ref={top} />
					{live.hasEarlier && (
						<button type="button" class="load-earlier" disabled={live.loadingEarlier} onClick={live.loadEarlier}>
							{t('conversation.loadEarlier')}
						</button>
					)}
					{live.messages.map((message, index) => {
						const before = live.messages[index - 1];
						const lines = machine.filter(
							(m) => m.receivedAt <= message.createdAt && (!before || m.receivedAt > before.createdAt),
						);
						const inbound = mailOf.get(message.id);
						return (
							<Fragment key={message.id}>
								{lines.map((m) => (
									<MachineMailLine key={m.id} mail={m} />
								))}
								<FoundMark seq={message.seq} focusSeq={focusSeq}>
									<MessageBubble
										message={message}
										author={
											consoleAuthor(message, directory.data, data ? contactLabel(data.contact) : null) ??
											t('author.contact')
										}
										seen={message.seq === seenSeq}
										mailState={mail.stateBySeq.get(message.seq) ?? message.mail}
										whatsappState={mail.whatsappBySeq.get(message.seq) ?? message.whatsapp}
									>
										{inbound && message.authorKind === 'contact' && <MailParts mail={inbound} />}
									</MessageBubble>
								</FoundMark>
							</Fragment>
						);
					})}
					{machine
						.filter((m) => {
							const last = live.messages.at(-1);
							return !last || m.receivedAt > last.createdAt;
						})
						.map((m) => (
							<MachineMailLine key={m.id} mail={m} />
						))}
					{live.pending.map((item) => (
						<div key={item.clientMessageId} class={`message team pending${item.private ? ' note' : ''}`}>
							<div class="meta">{t('conversation.sending')}</div>
							<MessageText text={item.text} />
						</div>
					))}
					{live.refused.map((item) => (
						<div key={item.clientMessageId} class={`message team refused${item.private ? ' note' : ''}`} role="alert">
							<div class="meta">{t('conversation.refused', { reason: item.reason })}</div>
							<MessageText text={item.text} />
							<button type="button" onClick={() => live.dismissRefused(item.clientMessageId)}>
								{t('conversation.dismiss')}
							</button>
						</div>
					))}
					<div ref={bottom} />
				</div>
				<div class="typing muted" aria-live="polite">
					{live.visitorTyping && t('conversation.visitorTyping')}
					{typingNames.length > 0 && t('conversation.teamTyping', { names: typingNames.join(', ') })}
				</div>
				{waWindow.known && <WhatsappWindow conversationId={id} state={waWindow} />}
				<Composer
					conversationId={id}
					byMail={data?.channel === 'email'}
					notesOnly={waWindow.known && !waWindow.open}
					onSend={live.send}
					onTyping={live.typing}
				/>
			</section>
			{showContact && data && (
				<ContactPanel
					contactId={data.contactId}
					session={session}
					conversationId={id}
					onClose={() => setShowContact(false)}
				/>
			)}
		</div>
	);
}

/** The message a search opened the conversation at, marked (`data-found-seq`); any other, as it is. */
function FoundMark(props: { seq: number; focusSeq: number | undefined; children: ComponentChildren }) {
	if (props.seq !== props.focusSeq) return <>{props.children}</>;
	return (
		<div class="found" data-found-seq={props.seq} data-testid="found-message">
			{props.children}
		</div>
	);
}

function MessageBubble(props: {
	message: Message;
	author: string;
	seen: boolean;
	mailState: MessageMail | undefined;
	whatsappState: MessageWhatsapp | undefined;
	children?: ComponentChildren;
}) {
	const { message, author, seen } = props;
	const team = message.authorKind !== 'contact';
	const interactive = message.interactive;
	const kind = message.private ? ' note' : message.authorKind === 'bot' ? ' bot' : '';
	return (
		<div class={`message${team ? ' team' : ''}${kind}`}>
			<div class="meta">
				{author} · {when(message.createdAt)}
				{message.private && ` · ${t('composer.note')}`}
			</div>
			{!namesItsFile(message) && <MessageText text={message.text} />}
			<MessageAttachments files={message.attachments} />
			{interactive?.type === 'buttons' && (
				<ul class="choices" aria-label={t('conversation.buttons')}>
					{interactive.buttons.map((choice) => (
						<li key={choice.label}>{choice.label}</li>
					))}
				</ul>
			)}
			{interactive?.type === 'rating' && (
				<ul class="choices" aria-label={t('conversation.rating')}>
					{[1, 2, 3, 4, 5].map((n) => (
						<li key={n}>{'★'.repeat(n)}</li>
					))}
				</ul>
			)}
			{interactive?.type === 'input' && (
				<div class="choices">
					<span>{t('conversation.asksFor', { input: interactive.input })}</span>
				</div>
			)}
			{props.children}
			{props.mailState && team && <MailState state={props.mailState} />}
			{props.whatsappState && team && <WhatsappState state={props.whatsappState} />}
			{seen && <div class="seen muted small">{t('conversation.seen')}</div>}
		</div>
	);
}
