import { describe, expect, it } from 'vitest';
import { classifyMetaError } from '../../src/engines/whatsapp/errors';

describe('classifyMetaError', () => {
	it.each([
		// code, HTTP status, retryable, throttle
		[131047, 400, false, undefined],
		[130429, 400, true, 'number'],
		[131056, 400, true, 'recipient'],
		[131048, 400, false, undefined],
		[131026, 400, false, undefined],
		[131000, 500, true, undefined],
		[131016, 500, true, undefined],
		[1, 400, true, undefined],
		[2, 503, true, undefined],
		[4, 400, true, 'number'],
		[80007, 400, true, 'number'],
		[190, 401, false, undefined],
		[100, 400, false, undefined],
		[131051, 400, false, undefined],
		[131052, 400, false, undefined],
		[131053, 400, false, undefined],
		[133004, 503, true, undefined],
		[132001, 404, false, undefined],
	] as const)('code %i (HTTP %i): retryable %s', (code, status, retryable, throttle) => {
		const verdict = classifyMetaError(code, status);
		expect(verdict.retryable).toBe(retryable);
		expect(verdict.throttle).toBe(throttle);
		expect(verdict.meaning.length).toBeGreaterThan(10);
	});

	it('decides by the code, not the HTTP status, for a code it knows', () => {
		// Meta's 131047 is never worth retrying, whatever status carries it.
		expect(classifyMetaError(131047, 500).retryable).toBe(false);
		expect(classifyMetaError(131000, 400).retryable).toBe(true);
	});

	it('retries code 1 (ambiguous) only a couple of times', () => {
		expect(classifyMetaError(1).maxRetries).toBe(2);
	});

	it('falls back on the HTTP status for a code it does not know', () => {
		expect(classifyMetaError(999999, 503).retryable).toBe(true);
		expect(classifyMetaError(999999, 429).retryable).toBe(true);
		expect(classifyMetaError(999999, 400).retryable).toBe(false);
		expect(classifyMetaError(250, 403).retryable).toBe(false);
		expect(classifyMetaError(null, 502).retryable).toBe(true);
		expect(classifyMetaError(undefined).retryable).toBe(false);
	});
});
