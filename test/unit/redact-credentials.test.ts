import { describe, expect, it } from 'vitest';
import { generateToken } from '../../src/auth/token';
import { redactCredentials } from '../../src/http/request-log';

describe('redactCredentials (what an error message may carry into the log)', () => {
	const token = generateToken();
	const cases: [string, string, string][] = [
		['a Token V3', `token ${token} refused`, 'token [redacted] refused'],
		['a visitor session token', 'session pvs1.eyJ2IjoxfQ.c2ln-_x refused', 'session [redacted] refused'],
		['an identity secret', 'secret pis_fe0KsjqZCPfSE6mwZ4GM99O6O2K6POAjOYvXq2gPspg used', 'secret [redacted] used'],
		['a JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.sig bad', 'jwt [redacted] bad'],
		['whatever follows "Bearer "', 'header Bearer abc.def', 'header Bearer [redacted]'],
		['nothing shaped like a credential', 'no such table: widget_settings', 'no such table: widget_settings'],
	];
	for (const [name, text, expected] of cases) {
		it(`replaces ${name}`, () => {
			expect(redactCredentials(text)).toBe(expected);
		});
	}
});
