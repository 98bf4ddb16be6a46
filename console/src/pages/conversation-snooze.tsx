import { useState } from 'preact/hooks';
import { type ConversationChanges, useChangeConversation } from '../data/conversations';
import { t, when } from '../i18n';
import { Problem } from '../ui/problem';

const HOUR = 3_600_000;

/** 9:00 local time `days` from today (tomorrow: 1), or on the next Monday with `monday`. */
function morning(days: number, monday = false): Date {
	const at = new Date();
	at.setHours(9, 0, 0, 0);
	const ahead = monday ? (8 - at.getDay()) % 7 || 7 : days;
	at.setDate(at.getDate() + ahead);
	return at;
}

/** A `datetime-local` value (local time, minutes) for `at`. */
function localInput(at: Date): string {
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/**
 * Snooze: the conversation goes to pending and reopens by itself at the time picked (a preset, or any time);
 * while snoozed, when it wakes and a way to end it now.
 */
export function SnoozeControl(props: { conversationId: string; snoozedUntil: string | null }) {
	const change = useChangeConversation(props.conversationId);
	const [custom, setCustom] = useState(() => localInput(morning(1)));
	const snooze = (at: Date) => change.mutate({ snoozedUntil: at.toISOString() } satisfies ConversationChanges);
	if (props.snoozedUntil) {
		return (
			<div class="action-row snooze">
				<span data-testid="snoozed-until">{t('snooze.until', { when: when(props.snoozedUntil) })}</span>
				<button type="button" disabled={change.isPending} onClick={() => change.mutate({ snoozedUntil: null })}>
					{t('snooze.end')}
				</button>
				{change.error && <Problem error={change.error} />}
			</div>
		);
	}
	return (
		<details class="snooze">
			<summary>{t('snooze.submit')}</summary>
			<div class="action-row">
				<button type="button" disabled={change.isPending} onClick={() => snooze(new Date(Date.now() + HOUR))}>
					{t('snooze.in1h')}
				</button>
				<button type="button" disabled={change.isPending} onClick={() => snooze(morning(1))}>
					{t('snooze.tomorrow')}
				</button>
				<button type="button" disabled={change.isPending} onClick={() => snooze(morning(0, true))}>
					{t('snooze.nextWeek')}
				</button>
				<form
					class="inline"
					onSubmit={(e) => {
						e.preventDefault();
						snooze(new Date(custom));
					}}
				>
					<label class="inline">
						<span>{t('snooze.label')}</span>
						<input
							type="datetime-local"
							value={custom}
							min={localInput(new Date())}
							onInput={(e) => setCustom(e.currentTarget.value)}
						/>
					</label>
					<button type="submit" disabled={change.isPending || !custom}>
						{t('snooze.submit')}
					</button>
				</form>
			</div>
			{change.error && <Problem error={change.error} />}
		</details>
	);
}
