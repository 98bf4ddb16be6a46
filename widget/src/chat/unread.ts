/**
 * The team's messages the visitor has not seen, per conversation, for the launcher's badge. The session's
 * snapshot gives each conversation's count and last seq; after that a team message counts once, by seq, if
 * it arrives unseen, whether live or in a reconnect's gap.
 */
import type { Conversation, Message } from '../api-types';

export class UnreadCounts {
	readonly byConversation = new Map<string, number>();
	/** Per conversation, the highest seq already accounted for. */
	private readonly counted = new Map<string, number>();

	constructor(private readonly changed: (total: number) => void) {}

	/** The Worker's snapshot of the visitor's conversations: the counts are its, conversations gone are gone. */
	adopt(conversations: Conversation[]): void {
		this.byConversation.clear();
		for (const c of conversations) {
			this.byConversation.set(c.id, c.unread);
			this.counted.set(c.id, Math.max(this.counted.get(c.id) ?? 0, c.lastMessageSeq));
		}
		this.report();
	}

	/** A team message reached the view; `seen` when the visitor was looking. */
	arrived(message: Message, seen: boolean): void {
		const id = message.conversationId;
		if (message.seq <= (this.counted.get(id) ?? 0)) return;
		this.counted.set(id, message.seq);
		if (!seen) this.byConversation.set(id, (this.byConversation.get(id) ?? 0) + 1);
		this.report();
	}

	read(conversationId: string): void {
		this.byConversation.set(conversationId, 0);
		this.report();
	}

	clear(): void {
		this.byConversation.clear();
		this.counted.clear();
		this.report();
	}

	private report() {
		let total = 0;
		for (const count of this.byConversation.values()) total += count;
		this.changed(total);
	}
}
