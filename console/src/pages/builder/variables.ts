/**
 * The variables a template at a step can read: the names every run has (src/engines/templates.ts'
 * `templateScope`) and what the steps that can come before it keep (a Data Entry's answer, an integration's
 * `response` mapping, a scenario step's `variable`, a Variable Assignment's names, a Loop's item).
 */
import type { Definition, DocumentKind, Step } from './schema';
import { outlets } from './schema';

/** The names the engine sets itself for every run (src/engines/templates.ts' `templateScope`). */
const RUN_NAMES = ['current_date', 'current_time', 'now'];

/** A plain variable (not a record's field such as `contact.name`, nor a name the engine sets itself). */
export function isVariable(name: string): boolean {
	return !name.includes('.') && !RUN_NAMES.includes(name);
}

const BOT_NAMES = [
	'contact.name',
	'contact.email',
	'contact.phone',
	'contact.id',
	'conversation.id',
	'conversation.channel',
	'agent.name',
	'answer',
	...RUN_NAMES,
];
const SCENARIO_NAMES = RUN_NAMES;

/** What a step keeps for the steps after it. */
function kept(step: Step): string[] {
	const names: string[] = [];
	const add = (value: unknown) => {
		if (typeof value === 'string' && value) names.push(value);
	};
	add(step.variable);
	if (step.type === 'data_entry' && step.askReason === true) add(`${String(step.variable)}_reason`);
	for (const record of [
		step.response,
		(step.validation as { integration?: { response?: unknown } })?.integration?.response,
		step.values,
	]) {
		if (record && typeof record === 'object') for (const key of Object.keys(record)) add(key);
	}
	if (step.type === 'loop') {
		add(step.as);
		if (typeof step.as === 'string') add(`${step.as}_index`);
	}
	return names;
}

/** The variables readable at `stepId`, the run's own names first, then the steps' before it in order found. */
export function variablesAt(
	kind: DocumentKind,
	definition: Definition,
	stepId: string,
	customFields: string[] = [],
): string[] {
	const before = new Map<string, string[]>();
	for (const step of definition.steps) {
		for (const outlet of outlets(kind, step)) {
			if (!outlet.target) continue;
			before.set(outlet.target, [...(before.get(outlet.target) ?? []), step.id]);
		}
	}
	const byId = new Map(definition.steps.map((s) => [s.id, s]));
	const seen = new Set<string>();
	const queue = [...(before.get(stepId) ?? [])];
	const names: string[] = [];
	while (queue.length > 0) {
		const id = queue.shift() as string;
		if (seen.has(id)) continue;
		seen.add(id);
		const step = byId.get(id);
		if (step) names.push(...kept(step));
		queue.push(...(before.get(id) ?? []));
	}
	const base =
		kind === 'bot' ? [...BOT_NAMES, ...customFields.map((key) => `contact.custom_fields.${key}`)] : SCENARIO_NAMES;
	return [...new Set([...names, ...base])];
}
