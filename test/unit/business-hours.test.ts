import { describe, expect, it } from 'vitest';
import { availabilityAt, type BusinessSchedule, isKnownTimeZone } from '../../src/engines/business-hours';

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
