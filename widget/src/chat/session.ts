/**
 * The visitor's session as the chat lives it: resumed (with backoff while the Worker cannot be reached),
 * told who the visitor is, checked when the socket keeps failing, and started over when the Worker refuses
 * it. Work begun for a previous visitor (before a `reset`) is dropped by comparing the state's `generation`.
 */
import type { Identity } from '../commands';
import { CallError } from './client';
import { type ChatContext, show } from './context';

export class SessionKeeper {
	private timer?: ReturnType<typeof setTimeout>;
	private backoffMs = 5000;

	constructor(private readonly ctx: ChatContext) {}

	/** A reset: a pending retry was the previous visitor's. */
	stop(): void {
		clearTimeout(this.timer);
	}

	/** Resumes the stored session: the visitor's conversations, and the latest open one shown and live. */
	async resume(generation = this.ctx.store.state.generation): Promise<void> {
		const { store, client, outbox, host } = this.ctx;
		try {
			const session = await client.session(host.origin());
			if (generation !== store.state.generation) return;
			store.dispatch({ type: 'adopt', conversations: session.conversations });
			if (!outbox.items.some((item) => !item.failed)) store.dispatch({ type: 'problem', problem: null });
			this.backoffMs = 5000;
			const { current, touched, chosen, conversations } = store.state;
			if (!current && !touched && !chosen) {
				const waitingIn = outbox.items.find((item) => item.conversationId && !item.failed)?.conversationId;
				const latest =
					conversations.find((c) => c.id === waitingIn) ?? conversations.find((c) => c.status !== 'closed');
				if (latest) show(this.ctx, latest);
			}
			outbox.flush();
		} catch (error) {
			if (generation !== store.state.generation || !(error instanceof CallError)) return;
			store.dispatch({ type: 'problem', problem: error.status === 429 ? 'rate_limited' : 'unreachable' });
			const wait = error.retryAfterMs ?? this.backoffMs;
			this.backoffMs = Math.min(this.backoffMs * 2, 60_000);
			this.timer = setTimeout(() => this.resume(generation), wait);
		}
	}

	/** The page said who the visitor is (`identify`): told to the session, and kept for a new one if it is lost. */
	async identify(identity: Identity): Promise<void> {
		const { store, client, host } = this.ctx;
		const generation = store.state.generation;
		store.dispatch({ type: 'identity', identity });
		await client.session(host.origin());
		if (generation !== store.state.generation) return;
		const details: Identity = {};
		for (const key of ['name', 'email', 'phone'] as const) if (identity[key]) details[key] = identity[key];
		store.dispatch({ type: 'known', details });
		// A verified visitor may bring conversations from other devices.
		if (await client.identify(identity)) {
			const { data } = await client.conversations();
			if (generation === store.state.generation) store.dispatch({ type: 'adopt', conversations: data });
		}
		const { current, touched, chosen, conversations } = store.state;
		if (generation === store.state.generation && !current && !touched && !chosen) {
			show(this.ctx, conversations.find((c) => c.status !== 'closed') ?? null);
		}
	}

	/**
	 * The Worker refused the session (ended in another tab, or idle for 30 days): start over as a new visitor,
	 * keeping what waits to be sent, and tell the new session who the page says the visitor is.
	 */
	lost(): void {
		const { store, outbox } = this.ctx;
		outbox.retarget(store.state.known);
		store.dispatch({ type: 'lost' });
		if (store.state.current) show(this.ctx, null);
		const { identity } = store.state;
		if (identity) this.identify(identity).catch(() => {});
	}

	/** The socket keeps failing: is the session still good, the conversation still the visitor's? */
	probe(): void {
		const { store } = this.ctx;
		const generation = store.state.generation;
		this.ctx.client
			.conversations()
			.then(({ data }) => {
				if (generation !== store.state.generation) return;
				store.dispatch({ type: 'adopt', conversations: data });
				const { current } = store.state;
				if (current && !data.some((c) => c.id === current.id)) show(this.ctx, null);
			})
			.catch(() => {});
	}
}
