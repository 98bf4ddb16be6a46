/**
 * What a bot run announces, and which bot a visitor's message starts: the domain's half of a run that the
 * conversation's room keeps (durable-objects/room-bot.ts), which queues the events with the run's changes.
 */
import type { RunState } from '../../../engines/bot-interpreter';
import { matchedKeyword } from '../../../engines/keywords';
import type { BotRunTrigger } from '../../../model/bot-runs';
import { type DomainEvent, newEvent } from '../../../model/events';
import type { RunnableBot } from './bots';

/** A run as its events name it: its bot and the conversation it runs in. */
export interface RunNames {
	workspaceId: string;
	conversationId: string;
	runId: string;
	bot: { id: string; name: string };
}

export function runStarted(run: RunNames, version: number, trigger: BotRunTrigger, now: number): DomainEvent {
	return newEvent(
		'bot.run_started',
		run.workspaceId,
		{ kind: 'bot', id: run.bot.id },
		{ bot: run.bot, runId: run.runId, conversationId: run.conversationId, version, trigger },
		now,
	);
}

/** `bot.run_ended` when the state is an end (done, failed, taken over), else null. */
export function runEnded(run: RunNames, state: RunState, now: number): DomainEvent | null {
	if (state.status === 'running' || state.status === 'waiting') return null;
	return newEvent(
		'bot.run_ended',
		run.workspaceId,
		{ kind: 'bot', id: run.bot.id },
		{
			bot: run.bot,
			runId: run.runId,
			conversationId: run.conversationId,
			status: state.status,
			reason: state.reason,
		},
		now,
	);
}

/** A visitor's message as the triggers read it. */
interface VisitorMessage {
	body: string;
	/** Whether it carries a file: its text is then the file's name ("pricing.pdf" asks about no pricing). */
	file: boolean;
	/** Whether it is the customer's first in the conversation. */
	first: boolean;
	channel: string;
}

/** The bot a visitor's message starts, if any: the first (by priority) on its channel whose trigger it meets. */
export function triggeredBot(
	candidates: RunnableBot[],
	message: VisitorMessage,
): { bot: RunnableBot; trigger: BotRunTrigger } | null {
	for (const bot of candidates) {
		if (bot.channels !== null && !bot.channels.includes(message.channel)) continue;
		if (bot.trigger === 'new_conversation' && message.first) return { bot, trigger: 'new_conversation' };
		if (bot.trigger === 'keyword' && !message.file && matchedKeyword(message.body, bot.keywords) !== null) {
			return { bot, trigger: 'keyword' };
		}
	}
	return null;
}
