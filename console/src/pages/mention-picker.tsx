import { type Mentionable, mentionText } from '../data/mentions';
import { t } from '../i18n';

/**
 * The members offered while a note's word starts with `@`: ↑/↓ choose, Enter or Tab takes one (the composer
 * owns the keys, as with saved replies; this shows the list and takes clicks).
 */
export function MentionPicker(props: {
	id: string;
	members: Mentionable[];
	active: number;
	onPick(member: Mentionable): void;
}) {
	if (props.members.length === 0) return <div class="canned-picker muted">{t('mention.none')}</div>;
	return (
		<div class="canned-picker" id={props.id} role="listbox" aria-label={t('mention.title')}>
			{props.members.map((member, index) => (
				<div
					key={member.id}
					class="canned-option"
					id={`${props.id}-${index}`}
					role="option"
					tabIndex={-1}
					aria-selected={index === props.active}
					onMouseDown={(e) => {
						// Before the textarea's blur: the click must not cost it the focus.
						e.preventDefault();
						props.onPick(member);
					}}
				>
					<strong>{mentionText(member.name)}</strong>
				</div>
			))}
		</div>
	);
}
