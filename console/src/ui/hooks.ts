import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Single-key shortcuts on the whole page (listed on the `?` overlay, ui/shortcuts-help.tsx), ignored while
 * typing in a field or with a modifier held (Shift aside: `?` is one), and while a modal dialog is open. The
 * latest `keys` are used, so handlers may read the current render's state.
 */
export function useShortcuts(keys: Record<string, () => void>): void {
	const current = useRef(keys);
	current.current = keys;
	useEffect(() => {
		const onKey = (event: KeyboardEvent) => {
			const target = event.target as HTMLElement;
			if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
			if (target.isContentEditable || target.closest('input, textarea, select, dialog[open]')) return;
			const action = current.current[event.key];
			if (!action) return;
			event.preventDefault();
			action();
		};
		document.addEventListener('keydown', onKey);
		return () => document.removeEventListener('keydown', onKey);
	}, []);
}

/** A form's submit: `busy` while it runs, and the error it ended with (shown in place), cleared on the next try. */
export function useSubmit<A extends unknown[]>(run: (...args: A) => Promise<void>) {
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const submit = async (...args: A) => {
		setBusy(true);
		setError(null);
		try {
			await run(...args);
		} catch (caught) {
			setError(caught);
		} finally {
			setBusy(false);
		}
	};
	return { busy, error, submit };
}

/** Inputs whose Enter is theirs (a button's press), not a request to send the form. */
const BUTTON_INPUTS = new Set(['submit', 'button', 'reset', 'image']);

/**
 * A form's `onKeyDown` that keeps Enter in a one-line field from sending the whole form (the browser's implicit
 * submission): a form of many parts (a rule, an assignment rule, a bot's trigger) is sent by its button only,
 * never half-written because Enter ended a tag or a name.
 */
export function enterSendsNothing(event: KeyboardEvent): void {
	const field = event.target;
	if (event.key === 'Enter' && field instanceof HTMLInputElement && !BUTTON_INPUTS.has(field.type)) {
		event.preventDefault();
	}
}
