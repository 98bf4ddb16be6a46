import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Single-key shortcuts on the whole page, ignored while typing in a field or with a modifier held. The latest
 * `keys` are used, so handlers may read the current render's state.
 */
export function useShortcuts(keys: Record<string, () => void>): void {
	const current = useRef(keys);
	current.current = keys;
	useEffect(() => {
		const onKey = (event: KeyboardEvent) => {
			const target = event.target as HTMLElement;
			if (event.altKey || event.ctrlKey || event.metaKey || target.closest('input, textarea, select')) return;
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
