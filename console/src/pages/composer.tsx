import { useRef, useState } from 'preact/hooks';
import type { Schemas } from '../api/client';
import { renderCannedReply, useCannedMatches } from '../data/canned';
import { insertMention, type Mentionable, mentionMatches, mentionQuery, mentionText } from '../data/mentions';
import { useDirectory } from '../data/workspace';
import { t } from '../i18n';
import { useShortcuts } from '../ui/hooks';
import { Problem } from '../ui/problem';
import { ComposerPicker, cannedQuery, pickerKey } from './canned-picker';
import { AttachButton, filesOf, StagedFileList, useStagedFiles } from './composer-files';

/** The longest message the team may send (the API's limit): the box takes no more. */
const MAX_TEXT = 10_000;

/** What was typed and not sent yet, per conversation: a reload or a crash does not lose a half-written reply. */
function draftKey(conversationId: string) {
	return `parley.draft.${conversationId}`;
}

/**
 * The reply box, or a private note to the team (the visitor never sees it): Enter sends, Shift+Enter a new
 * line, Escape leaves it, `r` (anywhere else) comes back to a reply and `n` to a note. `/` then a shortcut
 * offers the saved replies, filled in for this conversation's contact. The visitor sees that the team is
 * typing a reply, never a note. In a note, `@` then a name offers the team's members: the one chosen is
 * alerted (Settings › Notifications › Alerts). Files come by the paperclip, a drop or a paste, and go (each as
 * a message of its own, a note's as notes) before the text.
 */
export function Composer(props: {
	conversationId: string;
	/** An e-mail conversation: a reply goes out as a mail, and the mode says so. */
	byMail?: boolean;
	/** Only private notes (a WhatsApp conversation whose window has closed: replies go as templates). */
	notesOnly?: boolean;
	onSend(text: string, options: { private: boolean }): void;
	onTyping(): void;
}) {
	const [draft, setDraftState] = useState(() => sessionStorage.getItem(draftKey(props.conversationId)) ?? '');
	const [noteChosen, setNote] = useState(false);
	const note = noteChosen || !!props.notesOnly;
	const [active, setActive] = useState(0);
	const [error, setError] = useState<unknown>(null);
	const box = useRef<HTMLTextAreaElement>(null);
	const typingSent = useRef(0);
	const files = useStagedFiles(props.conversationId);
	const [dragging, setDragging] = useState(false);
	// `r` writes a reply, `n` a private note: the mode is chosen with the key, then the box takes the focus.
	useShortcuts({
		r: () => {
			setNote(false);
			box.current?.focus();
		},
		n: () => {
			setNote(true);
			box.current?.focus();
		},
	});
	const query = cannedQuery(draft);
	const matches = useCannedMatches(query);
	const replies = query === null ? [] : (matches.data ?? []);
	const [caret, setCaret] = useState(0);
	const directory = useDirectory();
	const mention = note ? mentionQuery(draft, caret) : null;
	const team: Mentionable[] = directory.data?.operators.filter((o) => !o.disabled) ?? [];
	const mentionable = mention === null ? [] : mentionMatches(mention.word, team);

	const setDraft = (text: string) => {
		setDraftState(text);
		if (text) sessionStorage.setItem(draftKey(props.conversationId), text);
		else sessionStorage.removeItem(draftKey(props.conversationId));
	};
	const send = async () => {
		const text = draft.trim();
		if (!text && !files.pending) return;
		setDraft('');
		// The files first, so a caption typed with them comes after them in the thread.
		if (files.pending) await files.send({ private: note });
		if (text) props.onSend(text, { private: note });
	};
	const typing = () => {
		const now = Date.now();
		if (note || now - typingSent.current < 2000) return;
		typingSent.current = now;
		props.onTyping();
	};
	const pick = async (reply: Schemas['CannedReply']) => {
		setError(null);
		try {
			const rendered = await renderCannedReply(reply.id, props.conversationId);
			setDraft(rendered.text);
			setActive(0);
			box.current?.focus();
		} catch (caught) {
			setError(caught);
		}
	};
	const pickerId = `canned-${props.conversationId}`;
	const mentionId = `mention-${props.conversationId}`;
	const pickMember = (member: Mentionable) => {
		if (mention === null) return;
		const next = insertMention(draft, mention.start, caret, member.name);
		setDraft(next.text);
		setCaret(next.caret);
		setActive(0);
		// After the new value is rendered: the caret goes after the name.
		requestAnimationFrame(() => box.current?.setSelectionRange(next.caret, next.caret));
	};

	return (
		<form
			class={`composer${note ? ' note' : ''}${dragging ? ' dragging' : ''}`}
			onSubmit={(event) => {
				event.preventDefault();
				void send();
			}}
			onDragOver={(event) => {
				if (!event.dataTransfer?.types.includes('Files')) return;
				event.preventDefault();
				setDragging(true);
			}}
			onDragLeave={() => setDragging(false)}
			onDrop={(event) => {
				const dropped = filesOf(event.dataTransfer);
				setDragging(false);
				if (dropped.length === 0) return;
				event.preventDefault();
				void files.add(dropped);
			}}
		>
			<div class="composer-modes" role="radiogroup" aria-label={t('composer.mode')}>
				{!props.notesOnly && (
					<label class="inline">
						<input type="radio" name={`mode-${props.conversationId}`} checked={!note} onChange={() => setNote(false)} />
						{t(props.byMail ? 'composer.replyByMail' : 'composer.reply')}
					</label>
				)}
				<label class="inline">
					<input type="radio" name={`mode-${props.conversationId}`} checked={note} onChange={() => setNote(true)} />
					{t('composer.note')}
				</label>
				{note && <span class="muted small">{t('composer.noteHint')}</span>}
			</div>
			{query !== null && (
				<ComposerPicker
					id={pickerId}
					label={t('canned.title')}
					none={t('canned.none')}
					items={replies}
					active={active}
					onPick={pick}
				>
					{(reply) => (
						<>
							<strong>/{reply.shortcut}</strong> {reply.title && <span>{reply.title}</span>}
							<div class="muted small ellipsis">{reply.text}</div>
						</>
					)}
				</ComposerPicker>
			)}
			{mention !== null && (
				<ComposerPicker
					id={mentionId}
					label={t('mention.title')}
					none={t('mention.none')}
					items={mentionable}
					active={active}
					onPick={pickMember}
				>
					{(member) => <strong>{mentionText(member.name)}</strong>}
				</ComposerPicker>
			)}
			{error !== null && <Problem error={error} />}
			<StagedFileList files={files} />
			<div class="composer-row">
				<AttachButton files={files} id={`attach-${props.conversationId}`} />
				<label class="visually-hidden" for="composer">
					{note ? t('composer.noteBox') : t('conversation.composer')}
				</label>
				<textarea
					id="composer"
					ref={box}
					value={draft}
					maxLength={MAX_TEXT}
					placeholder={note ? t('composer.notePlaceholder') : t('composer.placeholder')}
					aria-controls={query !== null ? pickerId : mention !== null ? mentionId : undefined}
					aria-activedescendant={
						query !== null && replies.length
							? `${pickerId}-${active}`
							: mention !== null && mentionable.length
								? `${mentionId}-${active}`
								: undefined
					}
					onPaste={(e) => {
						// A pasted screenshot (or copied files) is attached; pasted text goes in as text.
						const pasted = filesOf(e.clipboardData);
						if (pasted.length === 0) return;
						e.preventDefault();
						void files.add(pasted);
					}}
					onInput={(e) => {
						setDraft(e.currentTarget.value);
						setCaret(e.currentTarget.selectionStart);
						setActive(0);
						typing();
					}}
					onKeyUp={(e) => setCaret(e.currentTarget.selectionStart)}
					onClick={(e) => setCaret(e.currentTarget.selectionStart)}
					onKeyDown={(e) => {
						if (mention !== null && pickerKey(e, mentionable, active, setActive, pickMember)) return;
						if (query !== null && pickerKey(e, replies, active, setActive, (r) => void pick(r))) return;
						if (query !== null && e.key === 'Enter') {
							// A bare `/word` is a shortcut being looked up, never a message to send as it is.
							e.preventDefault();
						} else if (e.key === 'Escape') e.currentTarget.blur();
						else if (e.key === 'Enter' && !e.shiftKey) {
							e.preventDefault();
							void send();
						}
					}}
				/>
				<button class="primary" type="submit">
					{note ? t('composer.addNote') : t('conversation.send')}
				</button>
			</div>
		</form>
	);
}
