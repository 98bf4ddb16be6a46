import { useRef, useState } from 'preact/hooks';
import { t } from '../i18n';
import { useShortcuts } from '../ui/hooks';

/** What was typed and not sent yet, per conversation: a reload or a crash does not lose a half-written reply. */
function draftKey(conversationId: string) {
	return `parley.draft.${conversationId}`;
}

/**
 * The reply box: Enter sends, Shift+Enter a new line, Escape leaves it, `r` (anywhere else) comes back. The
 * team sees that you are typing (one frame every two seconds at most).
 */
export function Composer(props: {
	conversationId: string;
	contactId: string | undefined;
	onSend(text: string): void;
	onTyping(): void;
}) {
	const [draft, setDraftState] = useState(() => sessionStorage.getItem(draftKey(props.conversationId)) ?? '');
	const box = useRef<HTMLTextAreaElement>(null);
	const typingSent = useRef(0);
	useShortcuts({ r: () => box.current?.focus() });

	const setDraft = (text: string) => {
		setDraftState(text);
		if (text) sessionStorage.setItem(draftKey(props.conversationId), text);
		else sessionStorage.removeItem(draftKey(props.conversationId));
	};
	const send = () => {
		const text = draft.trim();
		if (!text) return;
		props.onSend(text);
		setDraft('');
	};
	const typing = () => {
		const now = Date.now();
		if (now - typingSent.current < 2000) return;
		typingSent.current = now;
		props.onTyping();
	};

	return (
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
				ref={box}
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
	);
}
