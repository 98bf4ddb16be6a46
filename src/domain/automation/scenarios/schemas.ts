import { z } from '@hono/zod-openapi';
import { Cron } from 'croner';
import { SCENARIO_TRIGGERS } from '../../../db/schema';
import { conditionSchema } from '../../../engines/conditions';
import { scenarioDefinitionInput, scenarioDefinitionSchema } from '../../../engines/scenario-definition';
import { describedUse } from '../../../lib/schema-rules';
import type { EventType } from '../../../model/events';
import { versionSchema } from '../versions';

/** What a scenario is, as the API reads and writes it: its settings, its trigger (an event or a schedule), its versions. */
/**
 * The events a scenario can start on: what happens to conversations, contacts, deals and tasks. Automation's
 * own events (bots, scenarios) are left out, so that no scenario can start itself in a loop.
 */
export const SCENARIO_EVENT_TYPES = [
	'conversation.created',
	'conversation.updated',
	'message.created',
	'contact.created',
	'contact.updated',
	'contact.merged',
	'tag.applied',
	'tag.removed',
	'deal.created',
	'deal.updated',
	'deal.stage_changed',
	'task.created',
	'task.updated',
	'note.created',
] as const satisfies readonly EventType[];

export const cronSchema = z
	.string()
	.trim()
	.min(9)
	.max(100)
	.refine((pattern) => nextFire(pattern, 'UTC', Date.now()) !== undefined, {
		message: 'must be a cron expression with a next time, such as "0 9 * * 1-5" (minute hour day month weekday)',
	})
	.openapi({ description: 'Minute, hour, day of month, month, day of week.', example: '0 9 * * 1-5' });

export const scenarioTriggerSchema = z
	.discriminatedUnion('kind', [
		z.strictObject({
			kind: z.literal('webhook').openapi({ description: 'Only its webhooks and API calls start it.' }),
		}),
		z.strictObject({
			kind: z.literal('event').openapi({ description: 'A domain event (its webhooks and API calls too).' }),
			events: z
				.array(z.enum(SCENARIO_EVENT_TYPES))
				.min(1)
				.max(SCENARIO_EVENT_TYPES.length)
				.openapi({ description: 'The event types it starts on.', example: ['deal.stage_changed'] }),
			condition: conditionSchema
				.nullable()
				.default(null)
				.openapi({ description: 'Starts only when it holds, on `vars.event` (the event: `vars.event.payload…`).' }),
		}),
		z.strictObject({
			kind: z.literal('schedule').openapi({ description: 'A schedule, in the workspace time zone.' }),
			cron: cronSchema,
		}),
	])
	.openapi('ScenarioTrigger', { description: 'What starts it, besides its webhooks and API calls.' });

export type ScenarioTrigger = z.infer<typeof scenarioTriggerSchema>;

export const scenarioSettings = {
	name: z.string().trim().min(1).max(100).openapi({ description: 'Its name.', example: 'Order to conversation' }),
	enabled: z.boolean().openapi({ description: 'Whether anything starts it (runs under way go on either way).' }),
	trigger: scenarioTriggerSchema,
};

export const newScenarioSchema = z
	.strictObject({
		...scenarioSettings,
		enabled: scenarioSettings.enabled.default(true),
		trigger: scenarioTriggerSchema.default({ kind: 'webhook' }),
		definition: scenarioDefinitionInput.openapi({ description: 'The draft: a `ScenarioDefinition`, checked whole.' }),
	})
	.openapi('NewScenario');

export const scenarioChangesSchema = z
	.strictObject({
		...scenarioSettings,
		definition: scenarioDefinitionInput.openapi({
			description: 'A new draft: a `ScenarioDefinition`, checked whole.',
		}),
	})
	.partial()
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('ScenarioChanges', { minProperties: 1 });

export const scenarioSchema = z
	.object({
		id: z.string().openapi({ description: 'The scenario id.', example: 'scn_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'Its name.' }),
		enabled: z.boolean().openapi({ description: 'Whether anything starts it.' }),
		trigger: z
			.object({
				kind: z.enum(SCENARIO_TRIGGERS).openapi({ description: 'What starts it besides webhooks and API calls.' }),
				events: z.array(z.string()).openapi({ description: 'An `event` scenario’s event types; [] otherwise.' }),
				condition: z
					.record(z.string(), z.unknown())
					.nullable()
					.openapi({ description: 'An `event` scenario’s condition (a `Condition`), or null.' }),
				cron: z.string().nullable().openapi({ description: 'A `schedule` scenario’s cron expression, or null.' }),
				nextFireAt: z
					.string()
					.nullable()
					.openapi({ description: 'When a published `schedule` scenario fires next (ISO 8601), or null.' }),
			})
			.openapi('ScenarioTriggerView'),
		draft: describedUse(scenarioDefinitionSchema, 'The definition being edited.'),
		publishedVersion: z
			.number()
			.int()
			.nullable()
			.openapi({ description: 'The version new runs start with; null until published.' }),
		lastVersion: z.number().int().openapi({ description: 'The latest version number; 0 before the first publish.' }),
		paused: z
			.object({
				at: z.string().openapi({ description: 'When (ISO 8601).' }),
				reason: z.string().openapi({ description: 'Why, for people.' }),
				runsPerMinute: z.number().int().openapi({ description: 'The limit it went past.' }),
			})
			.nullable()
			.openapi('ScenarioPause', {
				description:
					'Set while flood protection keeps it paused (and disabled): it started runs faster than the workspace allows (`scenarioRunsPerMinute`). `POST …/resume` (or enabling it) resumes it.',
			}),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When its settings or draft last changed (ISO 8601).' }),
	})
	.openapi('Scenario');

export const scenarioVersionSchema = versionSchema('ScenarioVersion', scenarioDefinitionSchema);

/** The first time after `after` that `cron` fires in `timeZone`; undefined when it never does again. */
export function nextFire(cron: string, timeZone: string, after: number): number | undefined {
	try {
		return new Cron(cron, { timezone: timeZone, paused: true }).nextRun(new Date(after))?.getTime();
	} catch {
		return undefined;
	}
}
