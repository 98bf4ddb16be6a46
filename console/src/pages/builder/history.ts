import { useRef, useState } from 'preact/hooks';

/** Edits closer together than this are one step of undo (typing a sentence is one change, not thirty). */
const COALESCE_MS = 700;
const LIMIT = 200;

/**
 * A value with undo and redo. `update` takes a function of the current value, so several edits in one event
 * (a step removed and its links cleared) compose. Edits that name the same `group` in quick succession (keys
 * typed in one step's form) are one step of history; any other edit (a step added, a link drawn) is its own.
 */
export function useHistory<T>(initial: T) {
	const [state, setState] = useState({ past: [] as T[], present: initial, future: [] as T[] });
	const last = useRef({ at: 0, group: '' });
	const update = (change: (current: T) => T, group?: string) => {
		const now = Date.now();
		const coalesce = group !== undefined && group === last.current.group && now - last.current.at < COALESCE_MS;
		last.current = { at: now, group: group ?? '' };
		setState((s) => {
			const next = change(s.present);
			if (next === s.present) return s;
			const past = coalesce && s.past.length > 0 ? s.past : [...s.past, s.present].slice(-LIMIT);
			return { past, present: next, future: [] };
		});
	};
	/** A new starting point (a document loaded): no history before it. */
	const reset = (value: T) => {
		last.current = { at: 0, group: '' };
		setState({ past: [], present: value, future: [] });
	};
	const undo = () => {
		last.current = { at: 0, group: '' };
		setState((s) =>
			s.past.length === 0
				? s
				: { past: s.past.slice(0, -1), present: s.past[s.past.length - 1] as T, future: [s.present, ...s.future] },
		);
	};
	const redo = () => {
		last.current = { at: 0, group: '' };
		setState((s) =>
			s.future.length === 0
				? s
				: { past: [...s.past, s.present], present: s.future[0] as T, future: s.future.slice(1) },
		);
	};
	return {
		value: state.present,
		update,
		reset,
		undo,
		redo,
		canUndo: state.past.length > 0,
		canRedo: state.future.length > 0,
	};
}
