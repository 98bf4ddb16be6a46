import type { Schemas } from '../api/client';
import { t } from '../i18n';

type CannedReply = Schemas['CannedReply'];

/** The `/word` being typed at the start of a draft (before any space), or null: what the picker looks up. */
export function cannedQuery(draft: string): string | null {
	const match = /^\/([a-z0-9_-]*)$/.exec(draft);
	return match ? (match[1] ?? '') : null;
}

/**
 * The saved replies offered while a draft is `/something`: ↑/↓ choose, Enter or Tab takes one (the composer
 * owns the keys; this only shows the list and takes clicks).
 */
export function CannedPicker(props: {
	id: string;
	replies: CannedReply[];
	active: number;
	onPick(reply: CannedReply): void;
}) {
	if (props.replies.length === 0) return <div class="canned-picker muted">{t('canned.none')}</div>;
	return (
		<div class="canned-picker" id={props.id} role="listbox" aria-label={t('canned.title')}>
			{props.replies.map((reply, index) => (
				<div
					key={reply.id}
					class="canned-option"
					id={`${props.id}-${index}`}
					role="option"
					// The textarea keeps the focus (aria-activedescendant points here); a click still picks.
					tabIndex={-1}
					aria-selected={index === props.active}
					onMouseDown={(e) => {
						// Before the textarea's blur: the click must not cost it the focus.
						e.preventDefault();
						props.onPick(reply);
					}}
				>
					<strong>/{reply.shortcut}</strong> {reply.title && <span>{reply.title}</span>}
					<div class="muted small ellipsis">{reply.text}</div>
				</div>
			))}
		</div>
	);
}
