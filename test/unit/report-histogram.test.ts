import { describe, expect, it } from 'vitest';
import { addHistogram, percentileOf } from '../../src/domain/reports/histogram';

const histogram = (entries: Array<[number, number, number]>) => {
	const merged = new Map<number, [number, number]>();
	addHistogram(merged, Object.fromEntries(entries.map(([bucket, n, sum]) => [String(bucket), [n, sum] as const])));
	return merged;
};

describe('percentileOf', () => {
	it.each([
		['nothing measured', [], 50, null],
		['one duration', [[95, 1, 60_000]], 50, 60_000],
		[
			'the median is rank 2 of 4: its bucket',
			[
				[40, 1, 30_000],
				[95, 1, 60_000],
				[111, 1, 120_000],
				[148, 1, 600_000],
			],
			50,
			60_000,
		],
		[
			'the 90th percentile is rank 4 of 4',
			[
				[40, 1, 30_000],
				[95, 1, 60_000],
				[111, 1, 120_000],
				[148, 1, 600_000],
			],
			90,
			600_000,
		],
		['a bucket of several answers their mean', [[95, 3, 181_500]], 50, 60_500],
		[
			'buckets in any order, by number',
			[
				[148, 1, 600_000],
				[40, 2, 60_000],
			],
			50,
			30_000,
		],
		[
			'rank ⌈p·n⌉: 90% of 11 is rank 10',
			[
				[1, 9, 9_000],
				[2, 1, 1_500],
				[3, 1, 2_100],
			],
			90,
			1_500,
		],
	] as Array<[string, Array<[number, number, number]>, number, number | null]>)('%s', (_name, entries, p, expected) => {
		expect(percentileOf(histogram(entries), p)).toBe(expected);
	});

	it('adds histograms bucket by bucket', () => {
		const merged = histogram([[3, 1, 2_000]]);
		addHistogram(merged, { 3: [2, 4_100], 7: [1, 9_000] });
		expect([...merged]).toEqual([
			[3, [3, 6_100]],
			[7, [1, 9_000]],
		]);
	});
});
