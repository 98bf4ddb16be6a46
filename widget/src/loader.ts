/**
 * widget.js: the entry the snippet imports, or the page loads with a script element of its own. It replaces
 * the queueing `kw` (the snippet's, or the one-line stub of a site without inline script) with the real one,
 * starts the widget from that script element's data attributes if it has them, then runs the calls queued
 * before it arrived, in order; later calls run at once and return their result (`kw('on', ...)` returns the
 * unsubscribe function).
 */
import { dataOptions } from './commands';
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
	// A module has no `document.currentScript`: its element is the one whose URL it was loaded from. Its init
	// goes first, as the snippet's does, since the queued calls may need the widget started.
	const data = [...document.scripts].find((script) => script.src === import.meta.url)?.dataset;
	if (data?.workspaceId) widget.run('init', [dataOptions(data)]);
	for (const call of queued) {
		const [name, ...args] = Array.from(call);
		widget.run(name, args);
	}
}
