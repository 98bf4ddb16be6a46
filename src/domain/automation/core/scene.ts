/**
 * The one scene loader of automation: what an action runs with (the conversation, its contact, the
 * workspace's locale for amounts) and what templates read (the contact, the conversation, its agent, the
 * business-hours time zone). A bot's run reads its conversation's; a scenario, which has none of its own, the
 * workspace's alone; a rule builds its scene from the facts it loads anyway (../rules/scene.ts) on this shape.
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { contacts, conversations, operators } from '../../../db/schema';
import type { RunContext } from '../../../engines/bot-interpreter';
import type { AmountLocale } from '../../../engines/values';
import { loadWidgetSettings } from '../../widget/settings';
import type { ActionContext } from './context';

/** What an action acts in: the ids its context carries, and how amounts and times are read. */
export interface ActionScene {
	conversationId: string | null;
	contactId: string | null;
	/** How amounts are read ("1.500,00" in `pt`, "1,500.00" in `en`): the workspace's widget locale. */
	locale: AmountLocale;
	/** The workspace's business-hours time zone, for templates' dates. */
	timeZone: string;
}

export interface Scene extends ActionScene {
	/** The conversation's channel; `unknown` when it has none (or is gone). */
	channel: string;
	/** What templates read: the contact, the conversation, its assignee as the agent. */
	context: RunContext;
}

/** What a run gives its actions besides its scene: which run, as whom, its variables, and its clock. */
type RunPart = Pick<ActionContext, 'run' | 'actor' | 'variables' | 'now'> &
	Partial<Pick<ActionContext, 'transport' | 'hops' | 'rule' | 'bot'>>;

/** The context every runner's actions run with: the run's part, in its scene. */
export function actionContext(
	env: Env,
	db: Database,
	workspaceId: string,
	scene: ActionScene,
	run: RunPart,
): ActionContext {
	return {
		env,
		db,
		workspaceId,
		conversationId: scene.conversationId,
		contactId: scene.contactId,
		locale: scene.locale,
		...run,
	};
}

/** The scene of a conversation (or of the workspace alone): one D1 round trip for each, in parallel. */
export async function loadScene(db: Database, workspaceId: string, conversationId: string | null): Promise<Scene> {
	const [row, { settings }] = await Promise.all([
		conversationId === null ? undefined : conversationRow(db, workspaceId, conversationId),
		loadWidgetSettings(db, workspaceId),
	]);
	const timeZone = settings.businessHours.timeZone;
	const channel = row?.channel ?? 'unknown';
	return {
		conversationId,
		contactId: row?.contactId ?? null,
		locale: settings.locale,
		timeZone,
		channel,
		context: {
			timeZone,
			contact: row?.contactId
				? {
						id: row.contactId,
						name: row.name,
						email: row.email,
						phone: row.phone,
						customFields: row.customFields ?? {},
					}
				: null,
			conversation: conversationId === null ? null : { id: conversationId, channel },
			agent: row?.agentId ? { id: row.agentId, name: row.agentName ?? '' } : null,
		},
	};
}

/** The conversation with its contact and its assignee, joined in one read. */
function conversationRow(db: Database, workspaceId: string, conversationId: string) {
	return db
		.select({
			channel: conversations.channel,
			contactId: conversations.contactId,
			name: contacts.name,
			email: contacts.email,
			phone: contacts.phone,
			customFields: contacts.customFields,
			agentId: operators.id,
			agentName: operators.name,
		})
		.from(conversations)
		.leftJoin(
			contacts,
			and(eq(contacts.id, conversations.contactId), eq(contacts.workspaceId, conversations.workspaceId)),
		)
		.leftJoin(
			operators,
			and(eq(operators.id, conversations.assigneeId), eq(operators.workspaceId, conversations.workspaceId)),
		)
		.where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
		.get();
}
