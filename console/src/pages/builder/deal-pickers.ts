/**
 * The pickers of a deal step (create_deal, update_deal): the workspace's funnels, and the stages of the funnel
 * chosen. The API takes a funnel or a stage by id or by name; the pickers write ids, except for a stage that
 * may be in any of several funnels (an update_deal over two funnels), which is written by name: each deal's
 * own funnel resolves it.
 */
import type { Schemas } from '../../api/client';
import type { Choice } from './choice-field';
import type { Step } from './schema';

type Funnel = Schemas['Funnel'];

const DEAL_STEPS = new Set(['create_deal', 'update_deal']);

/** The funnel an id or a name (the API's way: the id, else the name in any case) names. */
function funnelOf(funnels: Funnel[], ref: unknown): Funnel | undefined {
	if (typeof ref !== 'string') return undefined;
	return funnels.find((f) => f.id === ref) ?? funnels.find((f) => f.name.toLowerCase() === ref.toLowerCase());
}

/** The stage choices of a deal step: one funnel's stages by id, or the names the funnels it may be in share. */
function stageChoices(step: Step, funnels: Funnel[]): Choice[] {
	const chosen =
		step.type === 'create_deal'
			? [funnelOf(funnels, step.funnel)]
			: Array.isArray(step.funnels) && step.funnels.length > 0
				? step.funnels.map((ref) => funnelOf(funnels, ref))
				: funnels;
	const within = chosen.filter((f): f is Funnel => f !== undefined);
	if (within.length === 1) return (within[0] as Funnel).stages.map((s) => ({ value: s.id, label: s.name }));
	const names = [...new Set(within.flatMap((f) => f.stages.map((s) => s.name)))];
	return names.map((name) => ({ value: name, label: name }));
}

/** The pickers of a step's fields by name (`funnel`, `funnels`, `stage`); none for a step of another type. */
export function dealPickers(step: Step, funnels: Funnel[]): Record<string, Choice[]> {
	if (!DEAL_STEPS.has(step.type)) return {};
	const funnelChoices = funnels.map((f) => ({ value: f.id, label: f.name }));
	return { funnel: funnelChoices, funnels: funnelChoices, stage: stageChoices(step, funnels) };
}

/**
 * The step after its funnels changed, its stage kept where the new funnels have one of that name (as their id,
 * or its name over several funnels) and dropped where they have none; a stage written as a template stays.
 */
export function settleStage(before: Step, after: Step, funnels: Funnel[]): Step {
	const moved = JSON.stringify([before.funnel, before.funnels]) !== JSON.stringify([after.funnel, after.funnels]);
	const stage = after.stage;
	if (!DEAL_STEPS.has(after.type) || !moved || typeof stage !== 'string' || stage === '') return after;
	const byId = funnels.flatMap((f) => f.stages).find((s) => s.id === stage);
	const choices = stageChoices(after, funnels);
	if (choices.some((c) => c.value === stage)) return after;
	const same = choices.find((c) => c.label.toLowerCase() === (byId?.name ?? stage).toLowerCase());
	if (same) return { ...after, stage: same.value };
	if (!byId) return after;
	const { stage: _dropped, ...rest } = after;
	return rest as Step;
}
