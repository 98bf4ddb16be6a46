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

/** How far ahead `nextOpening` looks: a schedule closed for longer is treated as never opening. */
const OPENING_HORIZON_DAYS = 45;

/** `timeZone`'s offset from UTC at `at`, in ms (local wall time minus UTC, to the minute). */
export function offsetAt(timeZone: string, at: number): number {
	const local = localTime(timeZone, new Date(at));
	return Date.parse(`${local.date}T00:00:00Z`) + local.minutes * 60_000 - (at - (at % 60_000));
}

/** The wall time at `at` in `timeZone`, as a UTC-based number (ms, to the minute). */
function wallAt(timeZone: string, at: number): number {
	return at - (at % 60_000) + offsetAt(timeZone, at);
}

/**
 * The instant of wall time `minutes` after midnight on the local date `ymd` (a UTC midnight standing for it)
 * in `timeZone`. A wall time the spring daylight-saving shift skips comes out as the shift itself: the first
 * minute whose wall time is past it (02:30 on the night clocks jump from 02:00 to 03:00 opens at 03:00).
 */
function instantOf(timeZone: string, ymd: number, minutes: number): number {
	const wall = ymd + minutes * 60_000;
	const at = wall - offsetAt(timeZone, wall - offsetAt(timeZone, wall));
	if (wallAt(timeZone, at) === wall) return at;
	// In a gap: the wall time rises with the instant across it (no zone shifts twice in a day), so search the
	// minute in a window wider than any offset.
	let low = (wall - 15 * 3_600_000) / 60_000;
	let high = (wall + 15 * 3_600_000) / 60_000;
	while (low < high) {
		const middle = Math.floor((low + high) / 2);
		if (wallAt(timeZone, middle * 60_000) >= wall) high = middle;
		else low = middle + 1;
	}
	return low * 60_000;
}

/**
 * The instant a local wall time names in `timeZone`: `minutes` after midnight of `date` (YYYY-MM-DD). A wall
 * time that a daylight-saving shift skips is the shift itself (see `instantOf`).
 *
 * @example zonedInstant('America/Sao_Paulo', '2026-12-01', 9 * 60) // 2026-12-01T12:00:00Z
 */
export function zonedInstant(timeZone: string, date: string, minutes: number): number {
	return instantOf(timeZone, Date.parse(`${date}T00:00:00Z`), minutes);
}

/**
 * When the team next comes within its schedule after `from`: `from` itself when it is open now, null when no
 * interval opens in the next OPENING_HORIZON_DAYS days (no intervals at all, or holidays all the way).
 *
 * @example nextOpening(schedule, new Date('2026-11-21T22:00:00Z')) // Monday 09:00 in the schedule's zone
 */
export function nextOpening(schedule: BusinessSchedule, from: Date): Date | null {
	if (availabilityAt(schedule, from).online) return from;
	const today = localTime(schedule.timeZone, from);
	const [year, month, day] = today.date.split('-').map(Number) as [number, number, number];
	for (let offset = 0; offset <= OPENING_HORIZON_DAYS; offset++) {
		// Calendar days in local terms: a UTC midnight per local date, whatever the zone's shifts.
		const ymd = Date.UTC(year, month - 1, day + offset);
		const date = new Date(ymd).toISOString().slice(0, 10);
		if (schedule.holidays.includes(date)) continue;
		const weekday = WEEKDAYS[(new Date(ymd).getUTCDay() + 6) % 7] as Weekday;
		const starts = schedule.weekly[weekday]
			.map((interval) => minutesOf(interval.start))
			.filter((start) => offset > 0 || start > today.minutes)
			.sort((a, b) => a - b);
		for (const start of starts) {
			const at = instantOf(schedule.timeZone, ymd, start);
			if (at > from.getTime() && availabilityAt(schedule, new Date(at)).online) return new Date(at);
		}
	}
	return null;
}
