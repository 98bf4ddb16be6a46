/**
 * The deal-stage trigger: a deal entering a stage (created in it, or moved to it) starts the bots of that
 * stage in its contact's latest open conversation on one of the bot's channels, or in a new widget
 * conversation when the contact has none (as a sales team following up on a lead would). Run from the events
 * consumer, at least once per event: each start is keyed by the event and the bot, so a redelivered event
 * finds the conversation it opened and the run it started instead of doing either twice.
 */
import type { Database } from '../../../db/client';
import type { DomainEvent } from '../../../model/events';
import { latestConversation } from '../../conversations/conversations';
import { startConversation } from '../../conversations/start';
import { conversationRoom } from '../../objects';
import { type RunnableBot, runnableBots } from './bots';

type DealEvent = Extract<DomainEvent, { type: 'deal.created' | 'deal.stage_changed' }>;

export function isDealStageEvent(event: DomainEvent): event is DealEvent {
	return event.type === 'deal.created' || event.type === 'deal.stage_changed';
}

/**
 * Starts the best bot (by priority, then age) of the deal's new stage that has somewhere to run; the
 * outcome, for the log. One bot, as for every trigger: a conversation runs one bot at a time.
 */
export async function startDealBots(env: Env, db: Database, event: DealEvent): Promise<string | null> {
	const { deal } = event.payload;
	if (deal.contactId === null || deal.status !== 'open') return null;
	for (const bot of await runnableBots(db, event.workspaceId, ['deal_stage'], deal.stageId)) {
		const outcome = await startOne(env, db, event, deal.contactId, bot);
		if (outcome !== null) return outcome;
	}
	return null;
}

async function startOne(
	env: Env,
	db: Database,
	event: DealEvent,
	contactId: string,
	bot: RunnableBot,
): Promise<string | null> {
	const { workspaceId } = event;
	const startKey = `deal-bot:${event.id}:${bot.id}`;
	let conversationId = await latestConversation(db, workspaceId, contactId, { channels: bot.channels, open: true });
	if (!conversationId) {
		// No open conversation on its channels, and none it may open: the next bot may have one.
		if (bot.channels !== null && !bot.channels.includes('widget')) return null;
		const started = await startConversation(env, db, {
			workspaceId,
			contact: { id: contactId },
			channel: 'widget',
			startKey,
			actor: { kind: 'bot', id: bot.id },
			message: null,
		});
		conversationId = started.id;
	}
	const room = conversationRoom(env, conversationId);
	const outcome = await room.startBot(workspaceId, conversationId, bot, 'deal_stage', null, startKey);
	return `${bot.id}: ${outcome.status} in ${conversationId}`;
}
