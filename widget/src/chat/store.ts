/**
 * The chat's one store: the only place its state is written (through `reduce`), and the subscribers (the
 * view first, then the effects) told of every action with the state before and after it.
 */
import { type Action, type ChatState, reduce } from './state';

export type Listener = (state: ChatState, previous: ChatState, action: Action) => void;

export class Store {
	private readonly listeners: Listener[] = [];
	private readonly queue: Action[] = [];
	private dispatching = false;

	constructor(private current: ChatState) {}

	get state(): ChatState {
		return this.current;
	}

	subscribe(listener: Listener): void {
		this.listeners.push(listener);
	}

	/**
	 * Applies `action` and tells the subscribers. An action dispatched by a subscriber waits until every
	 * subscriber has seen the one before it, so each sees the actions in the same order.
	 */
	dispatch(action: Action): void {
		this.queue.push(action);
		if (this.dispatching) return;
		this.dispatching = true;
		try {
			for (let next = this.queue.shift(); next; next = this.queue.shift()) {
				const previous = this.current;
				this.current = reduce(previous, next);
				for (const listener of this.listeners) listener(this.current, previous, next);
			}
		} finally {
			this.dispatching = false;
			this.queue.length = 0;
		}
	}
}
