/**
 * The bot and scenario definitions of the API document (`BotDefinition`, `ScenarioDefinition`), held against
 * what saving one checks (`botProblems`, `scenarioProblems`). A request carries a definition with each step's
 * `id` and `type` described (test/openapi-bodies.test.ts holds those to the server) and points to these
 * schemas for a step's other fields, which the domain checks with the whole definition. A sample definition
 * with a step of every type is changed one field at a time, at every depth, as test/openapi-probes.ts derives
 * from the schema (a field left out, a value past a bound), and the check must judge each change as the
 * document does. A count or a text far past anything reasonable must pass where the document states no bound.
 */
import { describe, expect, it } from 'vitest';
import { botProblems } from '../src/engines/bot-definition';
import { scenarioProblems } from '../src/engines/scenario-definition';
import { api } from './factories';
import { disagreement, probes } from './openapi-probes';
import { ApiDocument, type Body, type OpenApiDocument, type Schema } from './openapi-replay';
import { leadBot } from './unit/bot-fixtures';
import { orderScenario } from './unit/scenario-fixtures';

const served = (await (await api(null, 'GET', '/v3/openapi.json')).json()) as OpenApiDocument;
const doc = new ApiDocument(served);

/** The lead bot, with the step types it lacks between its assignment and its end. */
const everyBotStep = {
	...leadBot,
	steps: [
		...leadBot.steps.map((step) => (step.id === 'assign' ? { ...step, next: 'move' } : step)),
		{ id: 'move', type: 'update_deal', stage: 'Won', next: 'profile' },
		{ id: 'profile', type: 'update_contact', name: '{{ name }}', next: 'tell' },
		{ id: 'tell', type: 'notify', text: 'A new lead: {{ name }}', next: 'bye' },
	],
};

/** The order scenario, with the step types it lacks before its end. */
const everyScenarioStep = {
	...orderScenario,
	steps: [
		...orderScenario.steps.map((step) => (step.id === 'mark' ? { ...step, next: 'won' } : step)),
		{ id: 'won', type: 'update_deal', dealVariable: 'deal', stage: 'Won', next: 'profile' },
		{ id: 'profile', type: 'update_contact', contact: '{{ contact.id }}', name: '{{ customer.name }}', next: 'latest' },
		{ id: 'latest', type: 'find_conversation', contact: '{{ contact.id }}', variable: 'latest', next: 'done' },
	],
};

/** A sample as plain JSON (its steps are of many shapes, which TypeScript types as one with optional fields). */
const asBody = (sample: object) => JSON.parse(JSON.stringify(sample)) as Body;

const cases = [
	{ name: 'BotDefinition', sample: asBody(everyBotStep), problems: botProblems },
	{ name: 'ScenarioDefinition', sample: asBody(everyScenarioStep), problems: scenarioProblems },
];

/** The step types a definition schema lists (each step's `type`). */
function stepTypes(name: string): unknown[] {
	const steps = doc.resolved({ $ref: `#/components/schemas/${name}` }).properties?.steps?.items;
	return (steps?.oneOf ?? []).map((step) => doc.resolved(step).properties?.type?.enum?.[0]);
}

describe('the definitions of GET /v3/openapi.json', () => {
	it.each(cases)('$name states what saving a definition checks', ({ name, sample, problems }) => {
		const judged = (value: unknown) => {
			const found = problems(value);
			return { refused: found.length > 0, fields: found.map((p) => p.path.join('.')), found };
		};
		expect(judged(sample).found).toEqual([]);
		// A sample with a step of every type: a new type is checked the day it is added.
		const sampled = new Set((sample.steps as { type: string }[]).map((step) => step.type));
		expect(stepTypes(name).filter((type) => !sampled.has(String(type)))).toEqual([]);
		const disagreements: string[] = [];
		const changes = probes(doc, { $ref: `#/components/schemas/${name}` } as Schema, sample, true);
		for (const probe of changes) {
			const verdict = judged(probe.value);
			const wrong = disagreement(probe, verdict);
			const why = verdict.found.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ');
			if (wrong) disagreements.push(`${probe.field} ${probe.change}: ${wrong} (${why.slice(0, 160)})`);
		}
		expect(disagreements).toEqual([]);
		expect(changes.length).toBeGreaterThan(100);
	});
});
