/**
 * Bots as the workspace keeps them: settings (name, trigger, channels, priority, enabled), a draft definition
 * that builders edit, and numbered versions (src/domain/automation/versions.ts, shared with scenarios). A run copies its
 * version's definition when it starts (in the conversation's room), so a publish, a rollback or a deletion
 * never changes a run under way.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { automationVersions, BOT_TRIGGERS, type BotTrigger, bots, operators } from '../../../db/schema';
import { type Reference, unknownReferences } from '../../../db/scoped';
import {
	type BotDefinition,
	botDefinitionInput,
	botDefinitionSchema,
	botProblems,
} from '../../../engines/bot-definition';
import { type ByNameCursor, byNameCursor } from '../../../lib/cursor';
import { Conflict, Invalid } from '../../../lib/errors';
import type { ExpectedVersion } from '../../../lib/expected-version';
import { iso, newId } from '../../../lib/ids';
import { describedUse } from '../../../lib/schema-rules';
import type { Actor } from '../../../model/actor';
import { channelName } from '../../../model/conversations';
import { resolveStage } from '../../crm/funnels';
import {
	checkedAgainst,
	createOwner,
	deleteOwner,
	deleteVersions,
	getVersion,
	listVersions,
	type OwnerKind,
	ownerPage,
	ownerRow,
	publishOwner,
	updateOwner,
	versionRow,
	versionSchema,
} from '../versions';

const keyword = z.string().trim().min(1).max(60);

const botTriggerSchema = z
	.discriminatedUnion('kind', [
		z.strictObject({
			kind: z.literal('new_conversation').openapi({ description: "The customer's first message." }),
		}),
		z.strictObject({
			kind: z.literal('keyword').openapi({ description: 'A visitor message holding one of the keywords.' }),
			keywords: z
				.array(keyword)
				.min(1)
				.max(20)
				.openapi({ description: 'Matched as whole words, ignoring case and accents.', example: ['pricing'] }),
		}),
		z.strictObject({
			kind: z.literal('manual').openapi({ description: 'Started by an operator (`POST /v3/conversations/{id}/bot`).' }),
		}),
		z.strictObject({
			kind: z.literal('deal_stage').openapi({ description: 'A deal entering the stage.' }),
			funnel: z.string().trim().min(1).max(100).openapi({ description: 'The funnel, by id or name.' }),
			stage: z.string().trim().min(1).max(100).openapi({ description: 'The stage, by id or name.' }),
		}),
	])
	.openapi('BotTrigger', { description: 'What starts the bot.' });

const botSettings = {
	name: z.string().trim().min(1).max(100).openapi({ description: 'Its name.', example: 'Lead qualification' }),
	enabled: z.boolean().openapi({ description: 'Whether its trigger starts it (runs under way go on either way).' }),
	trigger: botTriggerSchema,
	channels: z
		.array(channelName)
		.min(1)
		.max(20)
		.nullable()
		.openapi({ description: 'The channels it runs on (`widget`, `api`…); null for all.', example: ['widget'] }),
	priority: z.int().min(0).max(1000).openapi({
		description: 'When several bots could start on one event, the highest priority runs (then the oldest).',
	}),
};

export const newBotSchema = z
	.strictObject({
		...botSettings,
		enabled: botSettings.enabled.default(true),
		channels: botSettings.channels.default(null),
		priority: botSettings.priority.default(100),
		definition: botDefinitionInput.openapi({ description: 'The draft: a `BotDefinition`, checked whole.' }),
	})
	.openapi('NewBot');

export const botChangesSchema = z
	.strictObject({
		...botSettings,
		definition: botDefinitionInput.openapi({ description: 'A new draft: a `BotDefinition`, checked whole.' }),
	})
	.partial()
	.refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
	.openapi('BotChanges', { minProperties: 1 });

const triggerView = z
	.object({
		kind: z.enum(BOT_TRIGGERS).openapi({ description: 'What starts it.' }),
		keywords: z.array(z.string()).openapi({ description: 'A `keyword` bot’s words; [] otherwise.' }),
		stageId: z.string().nullable().openapi({ description: 'A `deal_stage` bot’s stage; null otherwise.' }),
	})
	.openapi('BotTriggerView');

export const botSchema = z
	.object({
		id: z.string().openapi({ description: 'The bot id.', example: 'bot_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().openapi({ description: 'Its name.' }),
		enabled: z.boolean().openapi({ description: 'Whether its trigger starts it.' }),
		trigger: triggerView,
		channels: z.array(z.string()).nullable().openapi({ description: 'The channels it runs on; null for all.' }),
		priority: z.number().int().openapi({ description: 'Highest first among bots a trigger could start.' }),
		draft: describedUse(botDefinitionSchema, 'The definition being edited.'),
		publishedVersion: z
			.number()
			.int()
			.nullable()
			.openapi({ description: 'The version new runs start with; null until published.' }),
		lastVersion: z.number().int().openapi({ description: 'The latest version number; 0 before the first publish.' }),
		createdAt: z.string().openapi({ description: 'When it was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When its settings or draft last changed (ISO 8601).' }),
	})
	.openapi('Bot');

type BotView = z.infer<typeof botSchema>;

export const botVersionSchema = versionSchema('BotVersion', botDefinitionSchema);

type BotRow = typeof bots.$inferSelect;

function botView(row: BotRow): BotView {
	return {
		id: row.id,
		name: row.name,
		enabled: row.enabled,
		trigger: { kind: row.trigger, keywords: row.keywords, stageId: row.stageId },
		channels: row.channels,
		priority: row.priority,
		draft: row.draft,
		publishedVersion: row.publishedVersion,
		lastVersion: row.lastVersion,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

/** The definition, checked: every problem (`definition.steps.3.validation.pattern: …`) in one 422. */
export function checkedDefinition(definition: unknown): BotDefinition {
	return checkedAgainst(definition, botProblems, botDefinitionSchema);
}

/**
 * The definition, checked, and its notify steps' operators members of the workspace (as a rule's notify
 * action's are): every problem (`definition.steps.4.operatorIds.0: no operator …`) in one 422.
 */
async function checkedDraft(db: Database, workspaceId: string, definition: unknown): Promise<BotDefinition> {
	const draft = checkedDefinition(definition);
	const named: Reference[] = draft.steps.flatMap((step, i) =>
		step.type === 'notify'
			? step.operatorIds.map((id, j) => ({
					path: ['definition', 'steps', i, 'operatorIds', j],
					table: operators,
					id,
					what: 'operator',
				}))
			: [],
	);
	const problems = named.length === 0 ? [] : await unknownReferences(db, workspaceId, named);
	if (problems.length > 0) throw Invalid.fromProblems(problems);
	return draft;
}

/** The stored trigger columns of a trigger as given (a deal stage resolved by id or name). */
async function triggerColumns(db: Database, workspaceId: string, trigger: z.infer<typeof botTriggerSchema>) {
	const stageId =
		trigger.kind === 'deal_stage'
			? (
					await resolveStage(db, workspaceId, trigger.funnel, trigger.stage, {
						funnel: 'trigger.funnel',
						stage: 'trigger.stage',
					})
				).stage.id
			: null;
	return { trigger: trigger.kind, keywords: trigger.kind === 'keyword' ? trigger.keywords : [], stageId };
}

const BOT: OwnerKind<typeof bots> = { table: bots, label: 'Bot', events: 'bot', key: 'bot' };

async function botRow(db: Database, workspaceId: string, id: string): Promise<BotRow> {
	return ownerRow(db, bots, BOT.label, workspaceId, id);
}

export async function getBot(db: Database, workspaceId: string, id: string): Promise<BotView> {
	return botView(await botRow(db, workspaceId, id));
}

export const botCursor = byNameCursor;

/** One page of the workspace's bots by name. */
export async function listBots(db: Database, workspaceId: string, after: ByNameCursor | null, limit: number) {
	return ownerPage(db, bots, workspaceId, after, limit, botView);
}

export async function createBot(
	env: Env,
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newBotSchema>,
	actor: Actor,
	now = Date.now(),
): Promise<BotView> {
	const draft = await checkedDraft(db, workspaceId, input.definition);
	const row: BotRow = {
		id: newId('bot', now),
		workspaceId,
		name: input.name,
		enabled: input.enabled,
		...(await triggerColumns(db, workspaceId, input.trigger)),
		channels: input.channels,
		priority: input.priority,
		draft,
		publishedVersion: null,
		lastVersion: 0,
		createdAt: now,
		updatedAt: now,
	};
	await createOwner(env, db, BOT, row, actor, now);
	return botView(row);
}

/** Changes a bot's settings or draft, with a `bot.updated` event naming what moved; nothing when nothing does. */
export async function updateBot(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	changes: z.infer<typeof botChangesSchema>,
	actor: Actor,
	/** The version the change was computed from (If-Match): applied only while it is current. */
	expected?: ExpectedVersion,
	now = Date.now(),
): Promise<BotView> {
	const current = await botRow(db, workspaceId, id);
	const set: Partial<BotRow> = {};
	if (changes.name !== undefined) set.name = changes.name;
	if (changes.enabled !== undefined) set.enabled = changes.enabled;
	if (changes.channels !== undefined) set.channels = changes.channels;
	if (changes.priority !== undefined) set.priority = changes.priority;
	if (changes.trigger !== undefined) Object.assign(set, await triggerColumns(db, workspaceId, changes.trigger));
	if (changes.definition !== undefined) set.draft = await checkedDraft(db, workspaceId, changes.definition);
	return botView(await updateOwner(env, db, BOT, current, set, actor, now, [], expected));
}

/** Deletes a bot and its versions, with `bot.deleted`; runs under way keep the definition they copied. */
export async function deleteBot(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	actor: Actor,
	expected?: ExpectedVersion,
	now = Date.now(),
) {
	const current = await botRow(db, workspaceId, id);
	await deleteOwner(env, db, BOT, current, [deleteVersions(db, current)], actor, now, expected);
}

/**
 * Publishes: without `version`, freezes the draft (checked again) as the next version; with one, makes that
 * existing version current again (a rollback). New runs start with it; runs under way keep theirs.
 */
export async function publishBot(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	version: number | undefined,
	operatorId: string | null,
	actor: Actor,
	now = Date.now(),
): Promise<BotView> {
	const current = await botRow(db, workspaceId, id);
	return botView(await publishOwner(env, db, BOT, current, version, checkedDefinition, operatorId, actor, now));
}

/** The bot's versions, newest first (without their definitions). */
export async function listBotVersions(db: Database, workspaceId: string, id: string) {
	return listVersions(db, await botRow(db, workspaceId, id));
}

/** One version of the bot with its definition. */
export async function getBotVersion(db: Database, workspaceId: string, id: string, version: number) {
	const v = await getVersion(db, await botRow(db, workspaceId, id), 'Bot', version);
	return { ...v, definition: v.definition as BotDefinition };
}

/** A bot ready to run: its id, name and the published version's definition. */
export interface RunnableBot {
	id: string;
	name: string;
	version: number;
	trigger: BotTrigger;
	keywords: string[];
	/** The channels it runs on; null for all. */
	channels: string[] | null;
	definition: BotDefinition;
}

/**
 * The enabled, published bots a trigger of these kinds may start, best first (highest priority, then oldest);
 * with `stageId`, only the `deal_stage` bots of that stage. Each says its channels: the caller picks by its
 * conversation's. One statement.
 */
export async function runnableBots(
	db: Database,
	workspaceId: string,
	kinds: BotTrigger[],
	stageId?: string,
): Promise<RunnableBot[]> {
	const rows = await db
		.select({
			id: bots.id,
			name: bots.name,
			version: automationVersions.version,
			trigger: bots.trigger,
			keywords: bots.keywords,
			channels: bots.channels,
			definition: automationVersions.definition,
		})
		.from(bots)
		.innerJoin(
			automationVersions,
			and(eq(automationVersions.ownerId, bots.id), eq(automationVersions.version, bots.publishedVersion)),
		)
		.where(
			and(
				eq(bots.workspaceId, workspaceId),
				inArray(bots.trigger, kinds),
				eq(bots.enabled, true),
				isNotNull(bots.publishedVersion),
				stageId === undefined ? undefined : eq(bots.stageId, stageId),
			),
		)
		.orderBy(desc(bots.priority), asc(bots.createdAt), asc(bots.id));
	return rows.map((row) => ({ ...row, definition: row.definition as BotDefinition }));
}

/** The published version of one bot (a manual start), or why it cannot start. */
export async function publishedBot(db: Database, workspaceId: string, id: string): Promise<RunnableBot> {
	const bot = await botRow(db, workspaceId, id);
	if (bot.publishedVersion === null) throw new Conflict(`Bot ${id} has no published version yet: publish it first.`);
	if (!bot.enabled) throw new Conflict(`Bot ${id} is disabled: enable it (PATCH {"enabled": true}) to start it.`);
	const version = await versionRow(db, bot, 'Bot', bot.publishedVersion);
	return {
		id: bot.id,
		name: bot.name,
		version: version.version,
		trigger: bot.trigger,
		keywords: bot.keywords,
		channels: bot.channels,
		definition: version.definition as BotDefinition,
	};
}
