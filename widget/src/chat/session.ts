/**
 * The visitor's session as the panel lives it: resumed (with backoff while the Worker cannot be reached),
 * told who the visitor is, checked when the socket keeps failing, and started over when the Worker refuses
 * it. Work begun for a previous visitor (before a `reset`) is dropped by comparing `generation`.
 */
import type { Conversation } from '../api-types';
import type { Identity } from '../commands';
import type { ChatPanel } from './chat';
import { CallError } from './client';
import { showConversation } from './view';

/** Resumes the stored session: the visitor's conversations, and the latest open one shown and live. */
export async function resume(chat: ChatPanel, generation: number) {
	try {
		const session = await chat.client.session(chat.host.origin());
		if (generation !== chat.generation) return;
		adopt(chat, session.conversations);
		if (!chat.outbox.items.some((item) => !item.failed)) chat.problem(null);
		chat.resumeBackoffMs = 5000;
		if (!chat.current && !chat.touched && !chat.chosen) {
			const waitingIn = chat.outbox.items.find((item) => item.conversationId && !item.failed)?.conversationId;
			const latest =
				chat.conversations.find((c) => c.id === waitingIn) ?? chat.conversations.find((c) => c.status !== 'closed');
			if (latest) showConversation(chat, latest);
		}
		chat.outbox.flush();
	} catch (error) {
		if (generation !== chat.generation || !(error instanceof CallError)) return;
		chat.problem(error.status === 429 ? 'rate_limited' : 'unreachable');
		const wait = error.retryAfterMs ?? chat.resumeBackoffMs;
		chat.resumeBackoffMs = Math.min(chat.resumeBackoffMs * 2, 60_000);
		chat.resumeTimer = setTimeout(() => resume(chat, generation), wait);
	}
}

/** Takes the Worker's list of the visitor's conversations (with their unread counts) as the truth. */
function adopt(chat: ChatPanel, conversations: Conversation[]) {
	chat.conversations = conversations;
	chat.unread.adopt(conversations);
	chat.header.listButton.hidden = conversations.length === 0;
}

/** The page said who the visitor is (`identify`): told to the session, and kept for a new one if it is lost. */
export async function identifyVisitor(chat: ChatPanel, identity: Identity): Promise<void> {
	const generation = chat.generation;
	chat.identity = identity;
	await chat.client.session(chat.host.origin());
	if (generation !== chat.generation) return;
	for (const key of ['name', 'email', 'phone'] as const) if (identity[key]) chat.known[key] = identity[key];
	// A verified visitor may bring conversations from other devices.
	if (await chat.client.identify(identity)) {
		const { data } = await chat.client.conversations();
		if (generation === chat.generation) adopt(chat, data);
	}
	if (generation === chat.generation && !chat.current && !chat.touched && !chat.chosen) {
		showConversation(chat, chat.conversations.find((c) => c.status !== 'closed') ?? null);
	}
}

/**
 * The Worker refused the session (ended in another tab, or idle for 30 days): start over as a new visitor,
 * keeping what waits to be sent, and tell the new session who the page says the visitor is.
 */
export function sessionLost(chat: ChatPanel) {
	chat.outbox.retarget(chat.known);
	chat.conversations = [];
	chat.unread.clear();
	if (chat.current) showConversation(chat, null);
	if (chat.identity) identifyVisitor(chat, chat.identity).catch(() => {});
}

/** The socket keeps failing: is the session still good, the conversation still the visitor's? */
export function probe(chat: ChatPanel) {
	const generation = chat.generation;
	chat.client
		.conversations()
		.then(({ data }) => {
			if (generation !== chat.generation) return;
			adopt(chat, data);
			if (chat.current && !data.some((c) => c.id === chat.current?.id)) showConversation(chat, null);
		})
		.catch(() => {});
}
