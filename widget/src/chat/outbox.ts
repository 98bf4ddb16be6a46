/**
 * The visitor's unsent messages, kept in localStorage until the Worker has stored them: a message typed
 * while the service is unreachable or rate-limited survives a reload and goes out, in order, once it can.
 * Every send carries its clientMessageId, so a retry after a lost answer never duplicates (the Worker
 * returns the first copy), including a retried conversation start.
 */
import type { Conversation, Details, Message } from '../api-types';
import { load, save } from '../storage';
import { CallError, type VisitorClient } from './client';

export interface Pending {
	clientMessageId: string;
	text: string;
	/** null: this message starts a new conversation (with the pre-chat values). */
	conversationId: string | null;
	details?: Details;
	customFields?: Record<string, string>;
	failed?: string;
}

export interface OutboxEvents {
	delivered(item: Pending, message: Message, started: Conversation | null): void;
	/** Why sending waits (null when all is well again) or that an item was refused for good. */
	changed(problem: 'rate_limited' | 'unreachable' | null): void;
}

export class Outbox {
	items: Pending[];
	private busy = false;
	private timer?: ReturnType<typeof setTimeout>;
	private backoffMs = 2000;

	constructor(
		private readonly client: VisitorClient,
		private readonly workspaceId: string,
		private readonly origin: () => unknown,
		private readonly on: OutboxEvents,
	) {
		this.items = load<Pending[]>(this.key) ?? [];
		addEventListener('online', () => this.flush());
	}

	private get key() {
		return `outbox:${this.workspaceId}`;
	}

	private persist() {
		save(this.key, this.items.length > 0 ? this.items : undefined);
	}

	add(item: Pending): void {
		this.items.push(item);
		this.persist();
		this.flush();
	}

	clear(): void {
		this.items = [];
		this.persist();
	}

	/** Sends the waiting items one at a time, in order; stops at the first that must wait. */
	async flush(): Promise<void> {
		if (this.busy) return;
		this.busy = true;
		clearTimeout(this.timer);
		try {
			for (let item = this.next(); item; item = this.next()) {
				try {
					await this.send(item);
					this.backoffMs = 2000;
					this.on.changed(null);
				} catch (error) {
					if (!(error instanceof CallError)) throw error;
					if (!error.transient) {
						item.failed = error.message;
						this.persist();
						this.on.changed(null);
						continue;
					}
					this.on.changed(error.status === 429 ? 'rate_limited' : 'unreachable');
					const wait = error.retryAfterMs ?? this.backoffMs;
					this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
					this.timer = setTimeout(() => this.flush(), wait);
					return;
				}
			}
		} finally {
			this.busy = false;
		}
	}

	private next(): Pending | undefined {
		return this.items.find((item) => !item.failed);
	}

	private async send(item: Pending) {
		await this.client.session(this.origin());
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
			// Messages typed while the start was under way belong to the conversation it opened.
			for (const other of this.items) if (other.conversationId === null) other.conversationId = started.id;
		} else {
			stored = await this.client.call<Message>(
				'POST',
				`/conversations/${encodeURIComponent(item.conversationId)}/messages`,
				message,
			);
		}
		this.items = this.items.filter((other) => other !== item);
		this.persist();
		this.on.delivered(item, stored, started);
	}
}
