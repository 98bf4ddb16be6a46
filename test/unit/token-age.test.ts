import { describe, expect, it } from 'vitest';
import { rotationWarning, tokenAge } from '../../src/auth/token-age';

const DAY = 24 * 60 * 60 * 1000;
const ISSUED = Date.UTC(2026, 0, 1);

describe('tokenAge and rotationWarning', () => {
	const cases: [string, number, { ageDays: number; rotationDue: boolean }][] = [
		['just issued', 0, { ageDays: 0, rotationDue: false }],
		['a day less a millisecond', DAY - 1, { ageDays: 0, rotationDue: false }],
		['89 days', 89 * DAY, { ageDays: 89, rotationDue: false }],
		['exactly 90 days', 90 * DAY, { ageDays: 90, rotationDue: false }],
		['90 days and a millisecond', 90 * DAY + 1, { ageDays: 90, rotationDue: true }],
		['400 days', 400 * DAY, { ageDays: 400, rotationDue: true }],
		// A clock a little behind the one that issued the token.
		['issued in the future', -5000, { ageDays: 0, rotationDue: false }],
	];
	for (const [name, elapsed, expected] of cases) {
		it(`${name}: ${JSON.stringify(expected)}`, () => {
			expect(tokenAge(ISSUED, ISSUED + elapsed)).toStrictEqual({ ...expected, rotateAfter: ISSUED + 90 * DAY });
			const warning = rotationWarning(ISSUED, ISSUED + elapsed);
			if (expected.rotationDue) {
				expect(warning).toStrictEqual({
					Deprecation: `@${(ISSUED + 90 * DAY) / 1000}`,
					Link: '</v3/me>; rel="deprecation"; type="application/json"',
				});
			} else {
				expect(warning).toBeNull();
			}
		});
	}
});
