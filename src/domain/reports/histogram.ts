/**
 * Duration histograms as the report's rollups store them (migrations/0038_report_rollups.sql): a bucket's number
 * mapped to `[count, sum of ms]`. Bucket 0 starts at 0, bucket k + 1 at 1 s × 2^(k/16) (k = 0…416), so a bucket
 * is under 1 s wide below 1 s and at most 4.5% of its lower bound wide above it; numbers rise with durations.
 */

/** A histogram: bucket number (as a JSON key) to `[count, sum of ms]`. */
export type Histogram = Record<string, readonly [number, number]>;

/** Adds `from` into `into` (both keyed as stored). */
export function addHistogram(into: Map<number, [number, number]>, from: Histogram): void {
	for (const [key, [n, sum]] of Object.entries(from)) {
		const bucket = into.get(Number(key));
		if (bucket) {
			bucket[0] += n;
			bucket[1] += sum;
		} else into.set(Number(key), [n, sum]);
	}
}

/**
 * The nearest-rank percentile `p` (0–100: the value at rank ⌈p·n/100⌉) of what `histogram` holds, as the mean
 * of the bucket that rank falls in: the true value is in the same bucket, so the answer is within a bucket's
 * width of it, and exact when that bucket's values are all equal. Null when the histogram is empty.
 *
 * @example percentileOf(new Map([[0, [1, 500]], [95, [2, 120_000]]]), 50) // 60_000
 */
export function percentileOf(histogram: ReadonlyMap<number, readonly [number, number]>, p: number): number | null {
	let total = 0;
	for (const [n] of histogram.values()) total += n;
	if (total === 0) return null;
	const rank = Math.floor((p * total + 99) / 100);
	let seen = 0;
	for (const key of [...histogram.keys()].sort((a, b) => a - b)) {
		const [n, sum] = histogram.get(key) as readonly [number, number];
		seen += n;
		if (seen >= rank) return sum / n;
	}
	return null;
}
