import type { z } from '@hono/zod-openapi';
import type { runSchema, runSummarySchema } from '../../domain/automation/scenarios/runs';
import type { scenarioSchema } from '../../domain/automation/scenarios/scenarios';
import type { webhookSchema } from '../../domain/automation/scenarios/webhooks';
import type { scenarioDefinitionSchema } from '../../engines/scenario-definition';
import { idParam } from '../../http/openapi';
import { versionedParams } from './versioned';

/** What the scenario routes show as examples, and the path parameters they share. */
export const exampleDefinition: z.input<typeof scenarioDefinitionSchema> = {
	start: 'contact',
	steps: [
		{
			id: 'contact',
			type: 'create_contact',
			name: '{{ name }}',
			email: '{{ email }}',
			variable: 'contact',
			next: 'conversation',
		},
		{
			id: 'conversation',
			type: 'create_conversation',
			contact: '{{ contact.id }}',
			message: 'Hi {{ name }}, your order {{ orderId }} has shipped!',
			variable: 'conversation',
		},
	],
};

export const example: z.input<typeof scenarioSchema> = {
	id: 'scn_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Order to conversation',
	enabled: true,
	trigger: { kind: 'webhook', events: [], condition: null, cron: null, nextFireAt: null },
	draft: exampleDefinition,
	publishedVersion: 1,
	lastVersion: 1,
	paused: null,
	createdAt: '2026-11-23T12:00:00.000Z',
	updatedAt: '2026-11-23T12:00:00.000Z',
};

export const webhookExample: z.input<typeof webhookSchema> = {
	id: 'wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	scenarioId: example.id,
	name: 'Shop orders',
	auth: 'secret',
	enabled: true,
	url: 'https://parley.acme.example/v3/workflows/webhook/wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	createdAt: example.createdAt,
};

/** A run as a page lists it; one run's read adds its input, variables and log. */
export const runSummaryExample: z.input<typeof runSummarySchema> = {
	id: 'run_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	scenarioId: example.id,
	version: 1,
	trigger: 'webhook',
	source: webhookExample.id,
	status: 'succeeded',
	error: null,
	retryable: false,
	createdAt: example.createdAt,
	finishedAt: '2026-11-23T12:00:00.210Z',
	hops: 0,
};

export const runExample: z.input<typeof runSchema> = {
	...runSummaryExample,
	input: { orderId: '1042', name: 'Ada', email: 'ada@example.com' },
	variables: {
		orderId: '1042',
		name: 'Ada',
		email: 'ada@example.com',
		contact: { id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' },
	},
	waitingAt: null,
	log: [
		{
			at: '2026-11-23T12:00:00.100Z',
			key: 'contact',
			stepId: 'contact',
			output: { id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' },
		},
	],
};

export const { idParams } = versionedParams('scenario', example.id);
export const webhookParams = idParams.extend({
	webhookId: idParam('webhookId', webhookExample.id, 'The webhook id.'),
});
export const runParams = idParams.extend({ runId: idParam('runId', runExample.id, 'The run id.') });
