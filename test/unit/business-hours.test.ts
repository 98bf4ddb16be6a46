import { describe, expect, it } from 'vitest';
import { availabilityAt, type BusinessSchedule, isKnownTimeZone, nextOpening } from '../../src/model/business-hours';

const nineToSix = [{ start: '09:00', end: '18:00' }];
const schedule = (timeZone: string, holidays: string[] = []): BusinessSchedule => ({
	timeZone,
	weekly: {
		mon: nineToSix,
		tue: nineToSix,
		wed: nineToSix,
		thu: nineToSix,
		fri: nineToSix,
		sat: [{ start: '10:00', end: '12:00' }],
		sun: [],
	},
	holidays,
});

describe('availabilityAt', () => {
	const cases: [string, BusinessSchedule, string, { online: boolean; period: string }][] = [
		['inside weekday hours', schedule('UTC'), '2026-11-23T10:00:00Z', { online: true, period: 'in_hours' }],
		['at opening time', schedule('UTC'), '2026-11-23T09:00:00Z', { online: true, period: 'in_hours' }],
		[
			'at closing time (end is exclusive)',
			schedule('UTC'),
			'2026-11-23T18:00:00Z',
			{ online: false, period: 'out_of_hours' },
		],
		['before opening', schedule('UTC'), '2026-11-23T08:59:00Z', { online: false, period: 'out_of_hours' }],
		['Saturday morning hours', schedule('UTC'), '2026-11-21T11:00:00Z', { online: true, period: 'in_hours' }],
		['Saturday afternoon', schedule('UTC'), '2026-11-21T15:00:00Z', { online: false, period: 'weekend' }],
		['Sunday', schedule('UTC'), '2026-11-22T11:00:00Z', { online: false, period: 'weekend' }],
		[
			'a holiday inside hours',
			schedule('UTC', ['2026-12-25']),
			'2026-12-25T10:00:00Z',
			{ online: false, period: 'holiday' },
		],
		// 12:30 UTC is 09:30 in São Paulo (UTC-3): open.
		['São Paulo morning', schedule('America/Sao_Paulo'), '2026-11-23T12:30:00Z', { online: true, period: 'in_hours' }],
		// 20:30 UTC is 17:30 in São Paulo: still open, though closed in UTC.
		[
			'São Paulo late afternoon',
			schedule('America/Sao_Paulo'),
			'2026-11-23T20:30:00Z',
			{ online: true, period: 'in_hours' },
		],
		// 10:00 UTC is 07:00 in São Paulo: closed.
		[
			'São Paulo before opening',
			schedule('America/Sao_Paulo'),
			'2026-11-23T10:00:00Z',
			{ online: false, period: 'out_of_hours' },
		],
		// Monday 01:00 in Tokyo is still Sunday in UTC: the local weekday decides.
		[
			'Tokyo on Monday while UTC is Sunday',
			schedule('Asia/Tokyo'),
			'2026-11-23T00:30:00Z',
			{ online: true, period: 'in_hours' },
		],
		// The holiday is the local date: 2026-12-25 starts at 15:00 UTC on the 24th in Tokyo.
		[
			'a Tokyo holiday on the UTC eve',
			schedule('Asia/Tokyo', ['2026-12-25']),
			'2026-12-24T16:00:00Z',
			{ online: false, period: 'holiday' },
		],
		// Paris after the switch to summer time (UTC+2): 07:30 UTC is 09:30 local.
		[
			'Paris after the DST switch',
			schedule('Europe/Paris'),
			'2026-03-30T07:30:00Z',
			{ online: true, period: 'in_hours' },
		],
		[
			'Paris before the DST switch',
			schedule('Europe/Paris'),
			'2026-03-27T07:30:00Z',
			{ online: false, period: 'out_of_hours' },
		],
	];

	for (const [name, sched, at, expected] of cases) {
		it(name, () => {
			expect(availabilityAt(sched, new Date(at))).toEqual(expected);
		});
	}

	it('treats an interval ending at 24:00 as open until midnight', () => {
		const lateNight = {
			...schedule('UTC'),
			weekly: { ...schedule('UTC').weekly, mon: [{ start: '20:00', end: '24:00' }] },
		};
		expect(availabilityAt(lateNight, new Date('2026-11-23T23:59:00Z')).online).toBe(true);
	});
});

describe('isKnownTimeZone', () => {
	it('knows IANA zones and refuses made-up ones', () => {
		expect(isKnownTimeZone('Europe/Paris')).toBe(true);
		expect(isKnownTimeZone('UTC')).toBe(true);
		expect(isKnownTimeZone('Mars/Olympus')).toBe(false);
	});
});

describe('nextOpening', () => {
	const everyDay = (day: { start: string; end: string }[]) => ({
		mon: day,
		tue: day,
		wed: day,
		thu: day,
		fri: day,
		sat: day,
		sun: day,
	});
	const gapSchedule = (timeZone: string): BusinessSchedule => ({
		timeZone,
		weekly: everyDay([{ start: '02:30', end: '06:00' }]),
		holidays: [],
	});
	const cases: [string, BusinessSchedule, string, string | null][] = [
		['open now: now', schedule('UTC'), '2026-11-23T10:00:00Z', '2026-11-23T10:00:00.000Z'],
		['before opening: today at 09:00', schedule('UTC'), '2026-11-23T07:15:00Z', '2026-11-23T09:00:00.000Z'],
		['after closing: tomorrow at 09:00', schedule('UTC'), '2026-11-23T18:00:00Z', '2026-11-24T09:00:00.000Z'],
		['Friday evening: Saturday at 10:00', schedule('UTC'), '2026-11-20T19:00:00Z', '2026-11-21T10:00:00.000Z'],
		['Saturday afternoon: Monday at 09:00', schedule('UTC'), '2026-11-21T13:00:00Z', '2026-11-23T09:00:00.000Z'],
		['over a holiday Monday', schedule('UTC', ['2026-11-23']), '2026-11-22T12:00:00Z', '2026-11-24T09:00:00.000Z'],
		// Friday 23:00 UTC is 20:00 in São Paulo (UTC−3): it opens on Saturday at 10:00 there, 13:00 UTC.
		[
			'São Paulo, Friday evening local',
			schedule('America/Sao_Paulo'),
			'2026-11-20T23:00:00Z',
			'2026-11-21T13:00:00.000Z',
		],
		// Sunday 15:30 UTC is Monday 00:30 in Tokyo: it opens at 09:00 local, 00:00 UTC.
		['Tokyo after local midnight', schedule('Asia/Tokyo'), '2026-11-22T15:30:00Z', '2026-11-23T00:00:00.000Z'],
		// Paris moves to UTC+2 on Sunday 2026-03-29: Monday 09:00 is 07:00 UTC, not 08:00.
		['Paris over the DST switch', schedule('Europe/Paris'), '2026-03-28T12:00:00Z', '2026-03-30T07:00:00.000Z'],
		// Opening inside the hour the spring shift skips (02:00 → 03:00): it opens when the clocks jump.
		[
			'New York, a start the clocks skip',
			gapSchedule('America/New_York'),
			'2026-03-08T01:00:00Z',
			'2026-03-08T07:00:00.000Z',
		],
		['Paris, a start the clocks skip', gapSchedule('Europe/Paris'), '2026-03-28T23:00:00Z', '2026-03-29T01:00:00.000Z'],
		// 01:30 comes twice when New York falls back: the first one.
		[
			'New York, a start that comes twice',
			{ ...gapSchedule('America/New_York'), weekly: everyDay([{ start: '01:30', end: '03:00' }]) },
			'2026-11-01T03:00:00Z',
			'2026-11-01T05:30:00.000Z',
		],
		[
			'a schedule with no hours: never',
			{ timeZone: 'UTC', weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] }, holidays: [] },
			'2026-11-23T10:00:00Z',
			null,
		],
	];

	for (const [name, sched, from, expected] of cases) {
		it(name, () => {
			const opening = nextOpening(sched, new Date(from));
			expect(opening?.toISOString() ?? null).toBe(expected);
			if (opening) expect(availabilityAt(sched, opening).online).toBe(true);
		});
	}
});
