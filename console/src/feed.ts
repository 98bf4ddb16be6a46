/**
 * The workspace's inbox feed (`GET /v3/live`), opened once while signed in: it keeps the operator online for
 * the team, carries the team's presence, and tells every page of the changes it shows. Pages subscribe with
 * `useFeedEvent`; presence is a small store read with `usePresence`.
 */
import { useEffect, useRef, useSyncExternalStore } from 'preact/compat';
import type { Alert } from '../../src/model/alerts';
import type { PresenceStatus } from '../../src/model/presence';
import { type LiveSocket, openLive } from './live';

export interface FeedEvent {
	id: string;
	type: string;
	actor?: { kind: string; id: string | null };
	payload: Record<string, unknown>;
}
export type { PresenceStatus } from '../../src/model/presence';

type Listener = (event: FeedEvent | 'reconnected') => void;
/** An `alert` frame: something that concerns this operator (src/model/alerts.ts). */
export interface FeedAlert {
	alert: Alert;
	sound: boolean;
}
type AlertListener = (alert: FeedAlert) => void;

const listeners = new Set<Listener>();
const alertListeners = new Set<AlertListener>();
const presenceListeners = new Set<() => void>();
let presence = new Map<string, PresenceStatus>();
const connectionListeners = new Set<() => void>();
let connected = false;
let socket: LiveSocket | null = null;
let users = 0;
// At-least-once delivery: an event seen again (after a reconnect) is dropped by id.
const seen: string[] = [];

function publishPresence(next: Map<string, PresenceStatus>) {
	presence = next;
	for (const listener of presenceListeners) listener();
}

function setConnected(next: boolean) {
	connected = next;
	for (const listener of connectionListeners) listener();
}

function open() {
	socket = openLive(() => '/v3/live', {
		onOpen: () => {
			setConnected(true);
			for (const listener of listeners) listener('reconnected');
		},
		onClose: () => setConnected(false),
		onFrame(frame) {
			if (frame.type === 'presence') {
				const entries = frame.presence as { operatorId: string; status: PresenceStatus }[];
				publishPresence(new Map(entries.map((e) => [e.operatorId, e.status])));
				return;
			}
			if (frame.type === 'alert') {
				for (const listener of alertListeners) listener(frame as unknown as FeedAlert);
				return;
			}
			if (frame.type !== 'event') return;
			const event = frame.event as FeedEvent;
			if (seen.includes(event.id)) return;
			seen.push(event.id);
			if (seen.length > 500) seen.shift();
			if (event.type === 'member.status_changed') {
				const operatorId = event.payload.memberId as string | undefined;
				const status = (event.payload.changes as { status?: { to?: PresenceStatus } })?.status?.to;
				if (operatorId && status) publishPresence(new Map(presence).set(operatorId, status));
			}
			for (const listener of listeners) listener(event);
		},
	});
}

/** Keeps the feed open while a signed-in page is mounted (the shell), and closes it when the last one leaves. */
export function useFeedConnection(): void {
	useEffect(() => {
		users++;
		if (!socket) open();
		return () => {
			users--;
			if (users === 0) {
				socket?.close();
				socket = null;
				publishPresence(new Map());
			}
		};
	}, []);
}

/** Calls `handler` with each new event of the feed, and with `'reconnected'` when it reopened (events may be lost). */
export function useFeedEvent(handler: Listener): void {
	const current = useRef(handler);
	current.current = handler;
	useEffect(() => {
		const listener: Listener = (event) => current.current(event);
		listeners.add(listener);
		return () => {
			listeners.delete(listener);
		};
	}, []);
}

/** Calls `handler` with each alert the feed brings this operator. */
export function useFeedAlert(handler: AlertListener): void {
	const current = useRef(handler);
	current.current = handler;
	useEffect(() => {
		const listener: AlertListener = (alert) => current.current(alert);
		alertListeners.add(listener);
		return () => {
			alertListeners.delete(listener);
		};
	}, []);
}

/** Whether the feed is open now: while it is not, nothing on screen updates by itself. */
export function useFeedConnected(): boolean {
	return useSyncExternalStore(
		(notify) => {
			connectionListeners.add(notify);
			return () => connectionListeners.delete(notify);
		},
		() => connected,
	);
}

/** Every operator's presence, live; one never seen online is absent (offline). */
export function usePresence(): ReadonlyMap<string, PresenceStatus> {
	return useSyncExternalStore(
		(notify) => {
			presenceListeners.add(notify);
			return () => presenceListeners.delete(notify);
		},
		() => presence,
	);
}
