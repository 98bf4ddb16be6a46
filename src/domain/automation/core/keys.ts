/**
 * The one idempotency-key scheme of automation: `<run kind>:<run id>:<step key>`. What an action makes inside
 * Parley (a conversation started, a message posted, a bot started) carries its step's key, so a step tried
 * again (a redelivered scenario message, a rule execution taken over, a room that lost its instance) finds
 * what its first try made instead of making it twice.
 *
 * - a bot run's message: `bot:<run id>:<messages sent before it>`;
 * - a bot run's action: `bot:<run id>:step:<step id>`, and its hand-over `bot:<run id>:transfer`;
 * - a scenario run's step: `scenario:<run id>:<step id and loop iterations>` (`scenario:run_…:tag@each:3`);
 * - a rule's action: `rule:<rule id>:<event id>:<action index>` (its execution is the rule and the event).
 */
import type { RunKind } from '../../../engines/actions/catalogue';

export function idempotencyKey(kind: RunKind, runId: string, stepKey: string | number): string {
	return `${kind}:${runId}:${stepKey}`;
}
