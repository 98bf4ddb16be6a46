/**
 * localStorage that never throws: storage can be disabled, full or blocked, and the widget must still work
 * (what storage refused is kept in memory, and forgotten across page loads). Keys are prefixed so the host
 * page's own keys are never touched.
 */
const PREFIX = 'parley:';
const memory = new Map<string, string>();

export function load<T>(key: string): T | undefined {
	let raw: string | null | undefined;
	try {
		raw = localStorage.getItem(PREFIX + key);
	} catch {
		raw = null;
	}
	raw ??= memory.get(key);
	if (raw == null) return undefined;
	try {
		return JSON.parse(raw) as T;
	} catch {
		return undefined;
	}
}

/** Stores `value` under `key`; `undefined` removes the key. */
export function save(key: string, value: unknown): void {
	memory.delete(key);
	try {
		if (value === undefined) localStorage.removeItem(PREFIX + key);
		else localStorage.setItem(PREFIX + key, JSON.stringify(value));
	} catch {
		// Storage is blocked or full: keep it for this page at least.
		if (value !== undefined) memory.set(key, JSON.stringify(value));
	}
}

/** The keys that start with `prefix` (without the widget's own prefix). */
export function keys(prefix: string): string[] {
	const found = new Set([...memory.keys()].filter((key) => key.startsWith(prefix)));
	try {
		for (const key of Object.keys(localStorage)) {
			if (key.startsWith(PREFIX + prefix)) found.add(key.slice(PREFIX.length));
		}
	} catch {
		// Storage is blocked: memory is all there is.
	}
	return [...found];
}
