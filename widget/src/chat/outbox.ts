/**
 * The visitor's unsent messages, kept in localStorage until the Worker has stored them: a message typed
 * while the service is unreachable or rate-limited survives a reload and goes out, in order, once it can.
 * Every send carries its clientMessageId, so a retry after a lost answer never duplicates (the Worker
 * returns the first copy), including a retried conversation start. Each message has its own key, so tabs
 * never overwrite each other's; two tabs sending the same one is harmless for the same reason.
 */
import type { Conversation, Details, Message } from '../api-types';
import { keys, load, save } from '../storage';
import { CallError, type VisitorClient } from './client';
import type { Pending } from './state';

export interface OutboxEvents {
	delivered(item: Pending, message: Message, started: Conversation | null): void;
	failed(item: Pending): void;
	/** Why sending waits, or null when all is well again. */
	changed(problem: 'rate_limited' | 'unreachable' | null): void;
	/** What is known of the visitor (the pre-chat form's fields), for a message that must start a conversation. */
	details(): Details;
	/** The Worker refused a message because the conversation is closed (and its visitors start a new one). */
	closed(conversationId: string): void;
}

export class Outbox {
	private busy = false;
	private timer?: ReturnType<typeof setTimeout>;
	private backoffMs = 2000;
	private retryAt = 0;
	/** Bumped by `clear` (a reset): answers to sends begun before it are dropped. */
	private epoch = 0;

	constructor(
		private readonly client: VisitorClient,
		private readonly workspaceId: string,
		private readonly origin: () => unknown,
		private readonly on: OutboxEvents,
	) {
		addEventListener('online', () => this.flush(true));
	}

	private key(clientMessageId: string) {
		return `outbox:${this.workspaceId}:${clientMessageId}`;
	}

	/** Every waiting or refused message of this browser, oldest first. */
	get items(): Pending[] {
		return keys(`outbox:${this.workspaceId}:`)
			.map((key) => load<Pending>(key))
			.filter((item): item is Pending => item !== undefined)
			.sort((a, b) => a.at - b.at);
	}

	add(item: Pending): void {
		this.update(item);
		this.flush();
	}

	update(item: Pending): void {
		save(this.key(item.clientMessageId), item);
	}

	discard(clientMessageId: string): void {
		save(this.key(clientMessageId), undefined);
	}

	clear(): void {
		this.epoch++;
		clearTimeout(this.timer);
		this.retryAt = 0;
		for (const item of this.items) this.discard(item.clientMessageId);
	}

	/**
	 * The session was replaced: the old conversations are out of reach, so waiting messages start a new one,
	 * with what is known of the visitor (the pre-chat form's required fields).
	 */
	retarget(details: Details): void {
		for (const item of this.items) {
			if (item.conversationId === null || item.failed) continue;
			this.update({ ...item, conversationId: null, details: { ...details, ...item.details } });
		}
	}

	/** Everything waiting for a conversation the Worker refuses (closed, visitors start anew) starts a new one. */
	private moveToNew(conversationId: string): void {
		this.on.closed(conversationId);
		const details = this.on.details();
		for (const item of this.items) {
			if (item.conversationId !== conversationId || item.failed) continue;
			this.update({
				...item,
				conversationId: null,
				movedFrom: conversationId,
				details: { ...details, ...item.details },
			});
		}
	}

	/**
	 * Sends the waiting items one at a time, in order; stops at the first that must wait, until its
	 * Retry-After (or backoff) has passed, unless `now` (the browser came back online).
	 */
	async flush(now = false): Promise<void> {
		if (this.busy || (!now && Date.now() < this.retryAt)) return;
		this.busy = true;
		clearTimeout(this.timer);
		const epoch = this.epoch;
		let lostSessions = 0;
		try {
			for (let item = this.next(); item; item = this.next()) {
				try {
					await this.send(item, epoch);
					if (epoch !== this.epoch) return;
					this.backoffMs = 2000;
					this.retryAt = 0;
					this.on.changed(null);
				} catch (error) {
					if (epoch !== this.epoch) return;
					if (!(error instanceof CallError)) {
						// Not the Worker's answer (a bug of ours): report it and try again later, never drop.
						console.error('[Parley] sending a message failed:', error);
						this.timer = setTimeout(() => this.flush(), this.backoffMs);
						return;
					}
					// The session was refused (the client already started over): once more, on a new session.
					if (error.status === 401 && lostSessions++ === 0) continue;
					// The conversation was closed and its workspace has visitors start a new one (the setting changed
					// while this waited, or another tab sent too): never stuck, it starts one, as a lost session's do.
					if (error.status === 409 && item.conversationId !== null) {
						this.moveToNew(item.conversationId);
						continue;
					}
					if (!error.transient) {
						const refused = { ...item, failed: error.message, failedStatus: error.status };
						this.update(refused);
						this.on.failed(refused);
						continue;
					}
					this.on.changed(error.status === 429 ? 'rate_limited' : 'unreachable');
					const wait = error.retryAfterMs ?? this.backoffMs;
					this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
					this.retryAt = Date.now() + wait;
					this.timer = setTimeout(() => this.flush(), wait);
					return;
				}
			}
		} finally {
			this.busy = false;
			// A reset while a send was under way: the new visitor's messages go now, not at the next send.
			if (epoch !== this.epoch && this.next()) this.flush();
		}
	}

	private next(): Pending | undefined {
		return this.items.find((item) => !item.failed);
	}

	private async send(item: Pending, epoch: number) {
		await this.client.session(this.origin());
		if (epoch !== this.epoch) return;
		const message = { text: item.text, clientMessageId: item.clientMessageId };
		let started: Conversation | null = null;
		let stored: Message;
		if (item.conversationId === null) {
			const origin = this.origin();
			const answer = await this.client.call<{ conversation: Conversation; message: Message }>(
				'POST',
				'/conversations',
				{
					message,
					...(item.details && Object.keys(item.details).length > 0 ? { details: item.details } : {}),
					...(item.customFields && Object.keys(item.customFields).length > 0
						? { customFields: item.customFields }
						: {}),
					...(origin ? { origin } : {}),
				},
			);
			started = answer.conversation;
			stored = answer.message;
		} else {
			stored = await this.client.call<Message>(
				'POST',
				`/conversations/${encodeURIComponent(item.conversationId)}/messages`,
				message,
			);
		}
		if (epoch !== this.epoch) return;
		this.discard(item.clientMessageId);
		// Messages typed while the start was under way belong to the conversation it opened.
		if (started) {
			for (const other of this.items) {
				if (other.conversationId === null && !other.failed) this.update({ ...other, conversationId: started.id });
			}
		}
		this.on.delivered(item, stored, started);
	}
}
