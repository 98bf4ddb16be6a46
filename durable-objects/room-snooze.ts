import { z } from '@hono/zod-openapi';
import { wakeSnoozed } from '../src/domain/conversations/snooze-wake';
import type { RoomStore } from './room-store';
import type { RoomTimers } from './room-timers';

/** The id and kind of the room's one snooze timer: a new snooze replaces the last. */
export const SNOOZE_TIMER = 'snooze';

const snoozePayload = z.object({ until: z.number().int() });

/**
 * A snoozed conversation reopens on its room's timer, one of the timers over the room's single alarm. The
 * timer carries the snooze's time; whether it still holds is D1's to say (see `wakeSnoozed`), so a snooze
 * ended or moved by a change the room never saw costs one read when the old timer fires, and nothing else.
 */
export class RoomSnooze {
	constructor(
		private readonly env: Env,
		private readonly store: RoomStore,
		private readonly timers: RoomTimers,
	) {}

	/** Sets the timer to `until` (true, once the alarm is set). */
	async schedule(until: number): Promise<true> {
		this.timers.schedule({ id: SNOOZE_TIMER, kind: SNOOZE_TIMER, dueAt: until, payload: { until } }, 'replace');
		await this.timers.scheduleNextAlarm();
		return true;
	}

	/**
	 * The customer wrote: a snoozed conversation wakes now rather than at its time, as Chatwoot's and Intercom's
	 * do. The snooze timer becomes due at once with its own time, so the wake keeps its one guard (D1 still has
	 * that snooze); call it in the turn of the message's append, before the outbox arms the alarm.
	 */
	customerWrote(now = Date.now()): void {
		const timer = this.timers.get(SNOOZE_TIMER);
		if (!timer || timer.dueAt <= now) return;
		this.timers.schedule({ id: SNOOZE_TIMER, kind: SNOOZE_TIMER, dueAt: now, payload: timer.payload }, 'replace');
	}

	/** The timer fired: reopen if the snooze still holds. A D1 failure throws, and the timer retries. */
	async onTimer(payload: unknown): Promise<void> {
		const room = this.store.room();
		if (!room) return;
		const { until } = snoozePayload.parse(payload);
		await wakeSnoozed(this.env, room.workspace_id, room.conversation_id, until);
	}
}
