/**
 * The actions of a classic automation rule: the kernel's (assign, apply or remove a tag, update the contact)
 * and what a rule adds: send a message, start a bot, create a task, save the conversation's messages to the
 * CRM, notify the team. A rule acts on the conversation and the contact its event is about; each action's
 * templates are rendered before it runs, with what its trigger fills (src/model/rule-variables.ts).
 */
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { conversations } from '../db/schema';
import { publishedBot } from '../domain/automation/bots/bots';
import { createDeal, latestOpenDeal } from '../domain/crm/deals';
import { addNote } from '../domain/crm/notes';
import { createTask } from '../domain/crm/tasks';
import { commit, release } from '../events/commit';
import { newEvent } from '../model/events';
import { type ActionContext, type ActionResult, given, needs, refused, refusedOn } from './context';
import { performSendMessage } from './conversations';
import { template } from './fields';
import { assignAction, performAction, tagAction, updateContactAction } from './index';
import { transcriptOf } from './transcript';

const sendMessage = z.strictObject({
	type: z.literal('send_message').openapi({ description: 'Send a message in the conversation (as the team’s bot).' }),
	text: template(4000).openapi({ description: 'The message (a template).' }),
	buttons: z
		.array(template(100))
		.max(10)
		.optional()
		.openapi({ description: 'Quick replies the visitor can tap (10 at most).' }),
});

const startBot = z.strictObject({
	type: z.literal('start_bot').openapi({ description: 'Start a bot in the conversation (its published version).' }),
	botId: z.string().min(1).max(64).openapi({ description: 'The bot.' }),
});

const createTaskAction = z.strictObject({
	type: z.literal('create_task').openapi({ description: 'Create a task about the conversation and its contact.' }),
	title: template(200).openapi({ description: 'What to do (a template).' }),
	assigneeId: z
		.string()
		.min(1)
		.max(64)
		.optional()
		.openapi({ description: 'Who does it; the conversation’s assignee when left out.' }),
	dueInMinutes: z
		.int()
		.min(1)
		.max(525_600)
		.optional()
		.openapi({ description: 'Due this many minutes after the rule fired; no date when left out.' }),
});

const saveToCrm = z.strictObject({
	type: z.literal('save_to_crm').openapi({
		description: 'Attach the conversation’s transcript as a note: to the contact’s open deal, else the contact.',
	}),
	newDeal: z
		.strictObject({
			funnelId: z.string().min(1).max(64).openapi({ description: 'The funnel of the deal to create.' }),
			stageId: z.string().min(1).max(64).optional().openapi({ description: 'Its stage; the first when left out.' }),
			name: template(400).openapi({ description: 'Its name (a template).' }),
		})
		.optional()
		.openapi({ description: 'When the contact has no open deal: create this one and attach the note to it.' }),
});

const notify = z.strictObject({
	type: z
		.literal('notify')
		.openapi({ description: 'Notify operators: on their live feed, and as a `rule.notification` webhook event.' }),
	text: template(1000).openapi({ description: 'What to tell them (a template).' }),
	operatorIds: z
		.array(z.string().min(1).max(64))
		.max(50)
		.default([])
		.openapi({ description: 'Whom to notify; the whole team when empty.' }),
});

export const ruleActionSchema = z
	.discriminatedUnion('type', [
		sendMessage,
		startBot,
		assignAction,
		tagAction,
		updateContactAction,
		createTaskAction,
		saveToCrm,
		notify,
	])
	.openapi('RuleAction', { description: 'One action of a rule, by `type`.' });

export type RuleAction = z.infer<typeof ruleActionSchema>;

/** What a rule's actions run with beyond the kernel's context: the rule, for its notification. */
interface RuleActionContext extends ActionContext {
	rule: { id: string; name: string };
}

/** Performs one rule action, its templates already rendered. */
export function performRuleAction(ctx: RuleActionContext, action: RuleAction): Promise<ActionResult> {
	switch (action.type) {
		case 'send_message':
			return performSendMessage(ctx, { conversation: needs(ctx, 'conversationId'), ...action });
		case 'start_bot':
			return performStartBot(ctx, action);
		case 'create_task':
			return performCreateTask(ctx, action);
		case 'save_to_crm':
			return performSaveToCrm(ctx, action);
		case 'notify':
			return performNotify(ctx, action);
		default:
			return performAction(ctx, action);
	}
}

function performStartBot(ctx: ActionContext, action: z.infer<typeof startBot>): Promise<ActionResult> {
	return refusedOn(async () => {
		const conversationId = needs(ctx, 'conversationId');
		const bot = await publishedBot(ctx.db, ctx.workspaceId, action.botId);
		const room = ctx.env.CONVERSATION_ROOM.getByName(conversationId);
		const outcome = await room.startBot(ctx.workspaceId, conversationId, bot, 'rule', null, ctx.idempotencyKey ?? null);
		if (outcome.status === 'not_found') return refused(`conversation ${conversationId} not found`);
		if (outcome.status === 'busy') return refused(`another bot runs in the conversation (run ${outcome.runId})`);
		return { ok: true, data: { runId: outcome.runId } };
	});
}

function performCreateTask(ctx: ActionContext, action: z.infer<typeof createTaskAction>): Promise<ActionResult> {
	return refusedOn(async () => {
		const title = given(action.title);
		if (title === undefined) return refused('title: rendered empty');
		let assigneeId = action.assigneeId;
		if (assigneeId === undefined && ctx.conversationId !== null) {
			const row = await ctx.db
				.select({ assigneeId: conversations.assigneeId })
				.from(conversations)
				.where(and(eq(conversations.workspaceId, ctx.workspaceId), eq(conversations.id, ctx.conversationId)))
				.get();
			assigneeId = row?.assigneeId ?? undefined;
		}
		if (assigneeId === undefined) return refused('assigneeId: the conversation has no assignee to give it to');
		const task = await createTask(
			ctx.env,
			ctx.db,
			ctx.workspaceId,
			{
				title,
				assigneeId,
				...(action.dueInMinutes === undefined ? {} : { dueAt: ctx.now + action.dueInMinutes * 60_000 }),
				...(ctx.contactId === null ? {} : { contactId: ctx.contactId }),
				...(ctx.conversationId === null ? {} : { conversationId: ctx.conversationId }),
			},
			{ actor: ctx.actor, operatorId: null, admin: true },
			ctx.now,
		);
		return { ok: true, data: { id: task.id, assigneeId: task.assigneeId } };
	});
}

function performSaveToCrm(ctx: ActionContext, action: z.infer<typeof saveToCrm>): Promise<ActionResult> {
	return refusedOn(async () => {
		const conversationId = needs(ctx, 'conversationId');
		const contactId = needs(ctx, 'contactId');
		const text = await transcriptOf(ctx.db, ctx.workspaceId, conversationId);
		if (text === null) return refused('the conversation has no messages to save');
		let dealId = await latestOpenDeal(ctx.db, ctx.workspaceId, contactId);
		let created = false;
		if (dealId === null && action.newDeal !== undefined) {
			const name = given(action.newDeal.name);
			if (name === undefined) return refused('newDeal.name: rendered empty');
			const deal = await createDeal(
				ctx.env,
				ctx.db,
				ctx.workspaceId,
				{ funnel: action.newDeal.funnelId, stage: action.newDeal.stageId, name, contactId, customFields: {} },
				ctx.actor,
				ctx.now,
			);
			dealId = deal.id;
			created = true;
		}
		const subject =
			dealId === null ? ({ kind: 'contact', id: contactId } as const) : ({ kind: 'deal', id: dealId } as const);
		const note = await addNote(ctx.env, ctx.db, ctx.workspaceId, subject, text, ctx.actor, ctx.now);
		return { ok: true, data: { noteId: note.id, subject, ...(created ? { dealCreated: true } : {}) } };
	});
}

async function performNotify(ctx: RuleActionContext, action: z.infer<typeof notify>): Promise<ActionResult> {
	const text = given(action.text);
	if (text === undefined) return refused('text: rendered empty');
	const event = newEvent(
		'rule.notification',
		ctx.workspaceId,
		ctx.actor,
		{
			rule: ctx.rule,
			text,
			operatorIds: action.operatorIds,
			conversationId: ctx.conversationId,
			contactId: ctx.contactId,
		},
		ctx.now,
	);
	const committed = await commit(ctx.db, { statements: [], events: [event] });
	await release(ctx.env, committed.events);
	return { ok: true, data: { eventId: event.id } };
}
