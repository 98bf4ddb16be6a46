/**
 * Optimistic concurrency for the documents people edit (bots, scenarios, rules, deals, contacts, custom
 * fields, widget settings): each row's `updated_at` is its version. Every write of these moves it to
 * `max(now, updated_at + 1)`, so two writes in one millisecond still give two versions, and each guards its
 * own write on the version it read. A caller that names the version it computed its change from (an
 * `If-Match` at the HTTP edge, src/lib/etag.ts) gets that version checked against the one read; the write's
 * guard then makes the check and the write one atomic step.
 */
import { PreconditionFailed } from './errors';

/** What a write expects of the thing it changes: that it exists (`any`), or that its version is one of these. */
export type ExpectedVersion = 'any' | readonly number[];

/** The refusal of a write whose expected version is no longer current. */
export function changedSince(label: string): PreconditionFailed {
	return new PreconditionFailed(
		`${label} has changed since the version you sent (If-Match): read it again and reapply your change.`,
	);
}

/**
 * Throws PreconditionFailed unless `version` (the one just read) is what the caller expects. `label` names the
 * thing as errors do: `Bot bot_…`. Nothing expected, nothing checked.
 */
export function assertVersion(expected: ExpectedVersion | undefined, version: number, label: string): void {
	if (expected === undefined || expected === 'any') return;
	if (!expected.includes(version)) throw changedSince(label);
}

/** Whether a write expected a particular version (so that losing a race to another write is a 412, not a 409). */
export function expectsVersion(expected: ExpectedVersion | undefined): boolean {
	return expected !== undefined && expected !== 'any';
}
