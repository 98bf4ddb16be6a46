/**
 * localStorage that never throws: storage can be disabled, full or blocked, and the widget must still work
 * (it then forgets across page loads). Keys are prefixed so the host page's own keys are never touched.
 */
const memory = new Map<string, string>();

export function load<T>(key: string): T | undefined {
	let raw: string | null | undefined;
	try {
		raw = localStorage.getItem(`parley:${key}`);
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

export function save(key: string, value: unknown): void {
	const raw = JSON.stringify(value);
	try {
		if (value === undefined) localStorage.removeItem(`parley:${key}`);
		else localStorage.setItem(`parley:${key}`, raw);
	} catch {
		if (value === undefined) memory.delete(key);
		else memory.set(key, raw);
	}
}
