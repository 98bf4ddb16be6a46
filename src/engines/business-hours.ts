/**
 * Business hours: is the team inside its schedule at a given instant, and which period's message applies.
 * Pure: a function of (schedule, instant); time zones through Intl, so daylight-saving shifts are right.
 */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `HH:MM` in the schedule's time zone; `end` may be `24:00`. */
export interface OpeningInterval {
	start: string;
	end: string;
}

export interface BusinessSchedule {
	timeZone: string;
	weekly: Record<Weekday, OpeningInterval[]>;
	/** Local dates (`YYYY-MM-DD`) on which the team is closed all day. */
	holidays: string[];
}

export type Period = 'in_hours' | 'out_of_hours' | 'weekend' | 'holiday';

export interface Availability {
	online: boolean;
	period: Period;
}

interface LocalTime {
	date: string;
	weekday: Weekday;
	minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
	let formatter = formatters.get(timeZone);
	if (!formatter) {
		formatter = new Intl.DateTimeFormat('en-US', {
			timeZone,
			weekday: 'short',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			hourCycle: 'h23',
		});
		formatters.set(timeZone, formatter);
	}
	return formatter;
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
	try {
		formatterFor(timeZone);
		return true;
	} catch {
		return false;
	}
}

function localTime(timeZone: string, at: Date): LocalTime {
	const parts: Record<string, string> = {};
	for (const part of formatterFor(timeZone).formatToParts(at)) parts[part.type] = part.value;
	const weekday = (parts.weekday ?? '').toLowerCase().slice(0, 3) as Weekday;
	return {
		date: `${parts.year}-${parts.month}-${parts.day}`,
		weekday,
		minutes: Number(parts.hour) * 60 + Number(parts.minute),
	};
}

/** `HH:MM` to minutes after midnight. */
export function minutesOf(hhmm: string): number {
	const [hours, minutes] = hhmm.split(':');
	return Number(hours) * 60 + Number(minutes);
}

/**
 * Whether the team is available at `at`, and the period whose message the widget shows.
 * Precedence: a holiday closes the whole day; inside an interval is in hours; otherwise Saturday and
 * Sunday are the weekend and any other time is out of hours.
 *
 * @example availabilityAt({ timeZone: 'Europe/Paris', weekly, holidays: [] }, new Date()) // { online: true, period: 'in_hours' }
 */
export function availabilityAt(schedule: BusinessSchedule, at: Date): Availability {
	const local = localTime(schedule.timeZone, at);
	if (schedule.holidays.includes(local.date)) return { online: false, period: 'holiday' };
	const open = schedule.weekly[local.weekday].some(
		(interval) => local.minutes >= minutesOf(interval.start) && local.minutes < minutesOf(interval.end),
	);
	if (open) return { online: true, period: 'in_hours' };
	if (local.weekday === 'sat' || local.weekday === 'sun') return { online: false, period: 'weekend' };
	return { online: false, period: 'out_of_hours' };
}
