// A visitor writing in through the widget's public endpoints, from Node: for tests that watch the console.
import { expect } from 'vitest';
import { HOST_ORIGIN } from './harness';
import { baseUrl } from './widget-page';

export interface TestVisitor {
	conversationId: string;
	/** Sends one more message in the conversation. */
	write(text: string): Promise<void>;
}

/** A visitor of workspace `workspaceId` who starts a conversation with `text`. */
export async function visitorStarts(workspaceId: string, text: string): Promise<TestVisitor> {
	const headers = { 'Content-Type': 'application/json', Origin: HOST_ORIGIN };
	const session = await fetch(`${baseUrl}/widget/${workspaceId}/sessions`, { method: 'POST', headers, body: '{}' });
	expect(session.status).toBe(200);
	const { sessionToken } = (await session.json()) as { sessionToken: string };
	const withSession = { ...headers, 'Parley-Session': sessionToken };
	const started = await fetch(`${baseUrl}/widget/${workspaceId}/conversations`, {
		method: 'POST',
		headers: withSession,
		body: JSON.stringify({ message: { text, clientMessageId: crypto.randomUUID() } }),
	});
	expect(started.status, await started.clone().text()).toBe(201);
	const conversationId = ((await started.json()) as { conversation: { id: string } }).conversation.id;
	return {
		conversationId,
		async write(more: string) {
			const res = await fetch(`${baseUrl}/widget/${workspaceId}/conversations/${conversationId}/messages`, {
				method: 'POST',
				headers: withSession,
				body: JSON.stringify({ text: more, clientMessageId: crypto.randomUUID() }),
			});
			expect(res.status, await res.clone().text()).toBe(201);
		},
	};
}

/**
 * Init script for a console page: records every desktop notification the page makes (`window.__notes`), and
 * lets the test hide the tab (`window.__setHidden(true)`): headless Chromium shows every page as visible. Its
 * `Notification.permission` answers what the Permissions API says (the context's grant), which headless
 * Chromium's own getter does not follow (it says "denied" whatever was granted).
 */
export const WATCH_NOTIFICATIONS = `(() => {
	const Real = window.Notification;
	const notes = [];
	window.__notes = notes;
	class Watched extends Real {
		constructor(title, options) {
			super(title, options);
			notes.push({ title, body: options && options.body, tag: options && options.tag, at: performance.now(), note: this });
		}
	}
	let permission = Real.permission;
	navigator.permissions.query({ name: 'notifications' }).then((status) => {
		permission = status.state === 'prompt' ? 'default' : status.state;
	});
	Object.defineProperty(Watched, 'permission', { get: () => permission });
	Watched.requestPermission = (...args) => Real.requestPermission(...args);
	window.Notification = Watched;
	let hidden = false;
	Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
	Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
	window.__setHidden = (next) => { hidden = next; document.dispatchEvent(new Event('visibilitychange')); };
})();`;
