/**
 * widget.js: the entry the snippet loads. It replaces the snippet's queueing `kw` with the real one, then
 * runs the calls queued before it arrived, in order; later calls run at once and return their result
 * (`kw('on', ...)` returns the unsubscribe function).
 */
import { Widget } from './widget';

interface Kw {
	(...args: unknown[]): unknown;
	q?: ArrayLike<unknown>[];
	loaded?: boolean;
}

const page = window as unknown as { kw?: Kw };
const queued = page.kw?.q ?? [];

// A snippet pasted twice loads this file twice: the first copy keeps the page.
if (!page.kw?.loaded) {
	const widget = new Widget(new URL(import.meta.url).origin);
	const kw: Kw = (name?: unknown, ...args: unknown[]) => widget.run(name, args);
	kw.loaded = true;
	page.kw = kw;
	for (const call of queued) {
		const [name, ...args] = Array.from(call);
		widget.run(name, args);
	}
}
