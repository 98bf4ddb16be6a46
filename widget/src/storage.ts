/**
 * localStorage that never throws: storage can be disabled, full or blocked, and the widget must still work
 * (it then forgets across page loads). Keys are prefixed so the host page's own keys are never touched.
 */
const PREFIX = 'parley:';
const memory = new Map<string, string>();

export function load<T>(key: string): T | undefined {
	let raw: string | null | undefined;
	try {
		raw = localStorage.getItem(PREFIX + key);
	} catch {
		raw = memory.get(key);
	}
	if (raw == null) return undefined;
	try {
		return JSON.parse(raw) as T;
	} catch {
		return undefined;
	}
}

/** Stores `value` under `key`; `undefined` removes the key. */
export function save(key: string, value: unknown): void {
	try {
		if (value === undefined) localStorage.removeItem(PREFIX + key);
		else localStorage.setItem(PREFIX + key, JSON.stringify(value));
	} catch {
		if (value === undefined) memory.delete(key);
		else memory.set(key, JSON.stringify(value));
	}
}

/** The keys that start with `prefix` (without the widget's own prefix). */
export function keys(prefix: string): string[] {
	try {
		return Object.keys(localStorage)
			.filter((key) => key.startsWith(PREFIX + prefix))
			.map((key) => key.slice(PREFIX.length));
	} catch {
		return [...memory.keys()].filter((key) => key.startsWith(prefix));
	}
}
