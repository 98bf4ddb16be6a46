/**
 * What a rule adds to the catalogue's actions: start a bot, create a task, save the conversation's transcript
 * to the CRM, notify the team (a bot's notify step too). Each acts on the conversation and the contact the
 * rule's event (the bot's run) is about.
 */
import { and, eq } from 'drizzle-orm';
import { conversations } from '../../../../db/schema';
import type {
	CreateTaskAction,
	NotifyAction,
	SaveToCrmAction,
	StartBotAction,
} from '../../../../engines/actions/rule-actions';
import { commit, release } from '../../../../events/commit';
import { type DomainEvent, newEvent } from '../../../../model/events';
import { createDeal, latestOpenDeal } from '../../../crm/deals';
import { addNote } from '../../../crm/notes';
import { createTask } from '../../../crm/tasks';
import { conversationRoom } from '../../../objects';
import { publishedBot } from '../../bots/bots';
import { type ActionContext, type ActionResult, given, needs, refused, refusedOn } from '../context';
import { transcriptOf } from './transcript';

export function performStartBot(ctx: ActionContext, action: StartBotAction): Promise<ActionResult> {
	return refusedOn(async () => {
		const conversationId = needs(ctx, 'conversationId');
		const bot = await publishedBot(ctx.db, ctx.workspaceId, action.botId);
		const room = conversationRoom(ctx.env, conversationId);
		const outcome = await room.startBot(ctx.workspaceId, conversationId, bot, 'rule', null, ctx.idempotencyKey ?? null);
		if (outcome.status === 'not_found') return refused(`conversation ${conversationId} not found`);
		if (outcome.status === 'busy') return refused(`another bot runs in the conversation (run ${outcome.runId})`);
		return { ok: true, data: { runId: outcome.runId } };
	});
}

export function performCreateTask(ctx: ActionContext, action: CreateTaskAction): Promise<ActionResult> {
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

export function performSaveToCrm(ctx: ActionContext, action: SaveToCrmAction): Promise<ActionResult> {
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

/**
 * Notifies the team: a `rule.notification` for a rule, a `bot.notification` for a bot's step (one event type
 * per runner, so a webhook subscriber of either keeps the payload it knows). The events consumer turns either
 * into alerts and mail (src/engines/alerts.ts, src/domain/channels/email/notifications.ts).
 */
export async function performNotify(ctx: ActionContext, action: NotifyAction): Promise<ActionResult> {
	const text = given(action.text);
	if (text === undefined) return refused('text: rendered empty');
	const about = { text, operatorIds: action.operatorIds, conversationId: ctx.conversationId, contactId: ctx.contactId };
	let event: DomainEvent;
	if (ctx.run.kind === 'bot' && ctx.bot !== undefined) {
		event = newEvent(
			'bot.notification',
			ctx.workspaceId,
			ctx.actor,
			{ bot: ctx.bot, runId: ctx.run.id, ...about },
			ctx.now,
		);
	} else if (ctx.run.kind === 'rule' && ctx.rule !== undefined) {
		event = newEvent('rule.notification', ctx.workspaceId, ctx.actor, { rule: ctx.rule, ...about }, ctx.now);
	} else {
		return refused('a notification names the rule or the bot that sends it');
	}
	const committed = await commit(ctx.db, { statements: [], events: [event] });
	await release(ctx.env, committed.events);
	return { ok: true, data: { eventId: event.id } };
}
