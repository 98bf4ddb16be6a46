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

export { WATCH_NOTIFICATIONS } from '../../scripts/notification-watch.mjs';
