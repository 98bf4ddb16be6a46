/**
 * One step of a run, as every runner takes it: the outcome an earlier try recorded is fed back, else the
 * action is performed under the step's idempotency key and its outcome recorded, through the runner's step
 * log (the port below), before the run goes on.
 */
import type { CatalogueAction } from '../../../engines/actions/catalogue';
import type { ActionContext, ActionResult } from './context';
import { idempotencyKey } from './keys';
import { performAction } from './perform';

/**
 * Where a runner keeps its steps' outcomes, each under its step key: a bot run's in the room (with the run's
 * next state), a scenario run's as `scenario_steps` rows (claimed before the action, so two deliveries never
 * both act), a rule execution's in its `outcomes`.
 */
export interface StepLog {
	/** The outcome an earlier try recorded under this key (fed back, not redone); null to perform the action. */
	recorded(stepKey: string): Promise<ActionResult | null>;
	/** Keeps the action's outcome under its key. */
	record(stepKey: string, action: CatalogueAction, result: ActionResult): Promise<void>;
}

/** Takes one step: its recorded outcome, or the action performed now (keyed) and its outcome recorded. */
export async function runStep(
	ctx: ActionContext,
	log: StepLog,
	stepKey: string,
	action: CatalogueAction,
): Promise<ActionResult> {
	const earlier = await log.recorded(stepKey);
	if (earlier !== null) return earlier;
	const result = await performAction(
		{ ...ctx, idempotencyKey: idempotencyKey(ctx.run.kind, ctx.run.id, stepKey) },
		action,
	);
	await log.record(stepKey, action, result);
	return result;
}
