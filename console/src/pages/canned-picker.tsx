import type { ComponentChildren } from 'preact';

/** The `/word` being typed at the start of a draft (before any space), or null: what the picker looks up. */
export function cannedQuery(draft: string): string | null {
	const match = /^\/([a-z0-9_-]*)$/.exec(draft);
	return match ? (match[1] ?? '') : null;
}

/**
 * What the composer offers while a word is being looked up: the saved replies for `/word`, the team's members for
 * a note's `@word`. The textarea keeps the focus and the keys (see `pickerKey`; aria-activedescendant points
 * here); this shows the list and takes clicks.
 */
export function ComposerPicker<T extends { id: string }>(props: {
	id: string;
	label: string;
	/** Said when nothing matches. */
	none: string;
	items: readonly T[];
	active: number;
	onPick(item: T): void;
	children(item: T): ComponentChildren;
}) {
	if (props.items.length === 0) return <div class="canned-picker muted">{props.none}</div>;
	return (
		<div class="canned-picker" id={props.id} role="listbox" aria-label={props.label}>
			{props.items.map((item, index) => (
				<div
					key={item.id}
					class="canned-option"
					id={`${props.id}-${index}`}
					role="option"
					tabIndex={-1}
					aria-selected={index === props.active}
					onMouseDown={(e) => {
						// Before the textarea's blur: the click must not cost it the focus.
						e.preventDefault();
						props.onPick(item);
					}}
				>
					{props.children(item)}
				</div>
			))}
		</div>
	);
}

/**
 * A picker's keys in the textarea: ↑/↓ move through its items, Enter or Tab takes the active one. Returns
 * whether the key was the picker's (then it is handled, and nothing else should be).
 */
export function pickerKey<T>(
	e: KeyboardEvent,
	items: readonly T[],
	active: number,
	setActive: (index: number) => void,
	take: (item: T) => void,
): boolean {
	if (items.length === 0) return false;
	if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
		e.preventDefault();
		setActive((active + (e.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length);
		return true;
	}
	if (e.key === 'Enter' || e.key === 'Tab') {
		e.preventDefault();
		const chosen = items[active];
		if (chosen !== undefined) take(chosen);
		return true;
	}
	return false;
}
