/**
 * How the widget lives in the host page: where it may start, when the page is idle, when a script may move
 * the focus, and keeping its element attached when a single-page app replaces the body.
 */

/** Runs `run` when the browser is idle (or soon, where it cannot tell). */
export const idle = (run: () => void) =>
	(window.requestIdleCallback ?? ((later: () => void) => setTimeout(later, 200)))(run);

/** HTTPS, or a local development host. */
export const SECURE = (location: Location) =>
	location.protocol === 'https:' || /^(localhost|127\.0\.0\.1|\[::1\])$/.test(location.hostname);

/** Whether a page script opening the chat may move the focus into it. */
export function scriptMayFocus(): boolean {
	if (matchMedia('(pointer: coarse)').matches) return false;
	// A "chat with us" button keeps the focus after its click: move on from it, but never from a field.
	const active = document.activeElement as HTMLElement | null;
	return !active || !(active.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName));
}

/**
 * Single-page apps and tools such as Turbo replace the page's <body>: put the widget back, with its state
 * (conversation, socket, open panel) intact, since it is the same element.
 */
export function keepAttached(host: HTMLElement) {
	const observer = new MutationObserver(() => {
		if (host.isConnected || !document.body) return;
		document.body.appendChild(host);
		watch();
	});
	const watch = () => {
		observer.disconnect();
		observer.observe(document.documentElement, { childList: true });
		observer.observe(document.body, { childList: true });
	};
	watch();
}
