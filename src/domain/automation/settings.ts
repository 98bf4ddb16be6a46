/**
 * A workspace's automation settings: today flood protection's limit, the runs a scenario may start in any
 * minute before it is paused (src/domain/automation/scenarios/flood.ts). A workspace that never saved them has the
 * defaults; an admin changes them with `PATCH /v3/automation-settings`.
 */
import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { automationSettings } from '../../db/schema';

/**
 * Far above a busy shop's orders (a webhook a second is 60), far below a loop (the 190 runs in 20 s
 * is 570): a flood is stopped within a minute without pausing real traffic.
 */
export const DEFAULT_SCENARIO_RUNS_PER_MINUTE = 100;

export const automationSettingsSchema = z
	.object({
		scenarioRunsPerMinute: z
			.int()
			.min(1)
			.max(100_000)
			.openapi({
				description: `Flood protection: the runs one scenario may start in any minute (by its webhooks, events, schedule and API calls together); one more pauses it until an admin resumes it. Default ${DEFAULT_SCENARIO_RUNS_PER_MINUTE}.`,
				example: DEFAULT_SCENARIO_RUNS_PER_MINUTE,
			}),
	})
	.openapi('AutomationSettings');

export const automationSettingsChangesSchema = z
	.strictObject(automationSettingsSchema.shape)
	.partial()
	.refine((b) => Object.keys(b).length > 0, 'give at least one setting to change')
	.openapi('AutomationSettingsChanges', { minProperties: 1 });

export type AutomationSettings = z.infer<typeof automationSettingsSchema>;

export async function getAutomationSettings(db: Database, workspaceId: string): Promise<AutomationSettings> {
	const row = await db
		.select({ scenarioRunsPerMinute: automationSettings.scenarioRunsPerMinute })
		.from(automationSettings)
		.where(eq(automationSettings.workspaceId, workspaceId))
		.get();
	return { scenarioRunsPerMinute: row?.scenarioRunsPerMinute ?? DEFAULT_SCENARIO_RUNS_PER_MINUTE };
}

/** Saves the changed settings (the others keep their value or default) in one upsert. */
export async function updateAutomationSettings(
	db: Database,
	workspaceId: string,
	changes: z.infer<typeof automationSettingsChangesSchema>,
	now = Date.now(),
): Promise<AutomationSettings> {
	const next = { ...(await getAutomationSettings(db, workspaceId)), ...changes };
	await db
		.insert(automationSettings)
		.values({ workspaceId, ...next, updatedAt: now })
		.onConflictDoUpdate({ target: automationSettings.workspaceId, set: { ...changes, updatedAt: now } });
	return next;
}
