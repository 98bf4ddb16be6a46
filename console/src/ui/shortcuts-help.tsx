/**
 * The `?` overlay: every keyboard shortcut of the console, in a modal dialog. `showModal` makes the rest of
 * the page inert (the focus stays in the dialog) and Escape closes it; the focus goes back where it was.
 */
import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n';
import type * as words from '../words/format';
import { useShortcuts } from './hooks';

/** The shortcuts, as the overlay and docs/console.md list them: the keys, and what they do. */
export const SHORTCUTS: ReadonlyArray<[keys: string[], word: keyof typeof words.en]> = [
	[['j', '↓'], 'shortcuts.next'],
	[['k', '↑'], 'shortcuts.previous'],
	[['r'], 'shortcuts.reply'],
	[['n'], 'shortcuts.note'],
	[['a'], 'shortcuts.assign'],
	[['x'], 'shortcuts.close'],
	[['/'], 'shortcuts.search'],
	[['Enter'], 'shortcuts.send'],
	[['Shift', 'Enter'], 'shortcuts.newLine'],
	[['Esc'], 'shortcuts.leave'],
	[['?'], 'shortcuts.help'],
];

/**
 * Tab and Shift+Tab go round the dialog's own controls: the page behind is inert while it is open, and the
 * focus never leaves for the browser's address bar either.
 */
function keepFocusInside(event: KeyboardEvent) {
	if (event.key !== 'Tab') return;
	const dialog = event.currentTarget as HTMLDialogElement;
	const controls = [...dialog.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea')];
	const first = controls[0];
	const last = controls.at(-1);
	if (!first || !last) return;
	const active = document.activeElement;
	if (event.shiftKey && (active === first || !dialog.contains(active))) {
		event.preventDefault();
		last.focus();
	} else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
		event.preventDefault();
		first.focus();
	}
}

export function ShortcutsHelp() {
	const [open, setOpen] = useState(false);
	const dialog = useRef<HTMLDialogElement>(null);
	useShortcuts({ '?': () => setOpen(true) });
	useEffect(() => {
		const element = dialog.current;
		if (!element) return;
		if (open && !element.open) element.showModal();
		if (!open && element.open) element.close();
	}, [open]);
	return (
		<>
			<button type="button" class="shortcuts-button" aria-haspopup="dialog" onClick={() => setOpen(true)}>
				{t('shortcuts.hint')}
			</button>
			<dialog
				ref={dialog}
				class="shortcuts"
				aria-labelledby="shortcuts-title"
				// Escape (the dialog's own cancel) or the button: either way the state follows.
				onClose={() => setOpen(false)}
				onKeyDown={keepFocusInside}
			>
				<h2 id="shortcuts-title">{t('shortcuts.title')}</h2>
				<dl>
					{SHORTCUTS.map(([keys, word]) => (
						<div key={word}>
							<dt>
								{keys.map((key, index) => (
									<Fragment key={key}>
										{index > 0 && (keys[0] === 'Shift' ? '+' : ` ${t('shortcuts.or')} `)}
										<kbd>{key}</kbd>
									</Fragment>
								))}
							</dt>
							<dd>{t(word)}</dd>
						</div>
					))}
				</dl>
				<form method="dialog">
					<button type="submit">{t('shortcuts.done')}</button>
				</form>
			</dialog>
		</>
	);
}
