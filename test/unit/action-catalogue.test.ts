import type { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { RUNNER_ACTIONS } from '../../src/engines/actions/catalogue';
import { ruleActionSchema } from '../../src/engines/actions/rule-actions';
import { botDefinitionSchema } from '../../src/engines/bot-definition';
import { scenarioDefinitionSchema } from '../../src/engines/scenario-definition';

/** The `type` of each option of a discriminated union of strict objects. */
function typesOf(union: z.ZodType): string[] {
	const options = (union as unknown as { options: Array<{ shape: { type: { value: string } } }> }).options;
	return options.map((option) => option.shape.type.value);
}

describe('the runners’ action sets', () => {
	// The steps an interpreter plays itself; every other step is an action the core performs.
	it.each([
		[
			'bot',
			typesOf(botDefinitionSchema.shape.steps.element),
			['send_message', 'data_entry', 'decision', 'delay', 'transfer', 'end'],
		],
		['scenario', typesOf(scenarioDefinitionSchema.shape.steps.element), ['condition', 'set_variables', 'loop', 'end']],
		['rule', typesOf(ruleActionSchema), []],
	] as const)('lets a %s take every action its definitions offer, and nothing they do not', (kind, types, control) => {
		const actions = types.filter((type) => !(control as readonly string[]).includes(type));
		expect([...RUNNER_ACTIONS[kind]].sort()).toEqual([...actions].sort());
	});
});
