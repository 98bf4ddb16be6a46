/**
 * The bot runner: performs the effects a bot's interpreter (src/engines/bot-interpreter.ts) hands out, one at
 * a time, for the conversation room that keeps the run (durable-objects/room-bot.ts). What only the room can
 * do (its storage, its timers, its sockets, its write path for messages) it lends through `BotRoom`; the
 * actions, and the Transfer (the catalogue's assign, as a handoff), go through the automation core.
 *
 * Each effect is marked done in the room's storage once performed (an action's, with the run's next state),
 * so an instance lost mid-way leaves the rest for its successor: a message goes out once (its client id is
 * the run's key for it), a CRM or integration call may be made again (at least once, as every outbound
 * call is).
 */
import { workspaceDb } from '../../../db/shards';
import type { BotEvent, Effect } from '../../../engines/bot-interpreter';
import type { CheckedMessage, PostOutcome } from '../../conversations/message-command';
import type { ActionContext } from '../core/context';
import { idempotencyKey } from '../core/keys';
import { actionContext as contextIn, type Scene } from '../core/scene';
import { runStep, type StepLog } from '../core/steps';
import { loadFacts } from '../facts';
import { botMessage } from './messages';

type LogEffect = Extract<Effect, { kind: 'log' }>;

/** What the room lends the runner for one run's next effect. */
export interface BotRoom {
	workspaceId: string;
	conversationId: string;
	/** The run whose effect it is: its bot, its variables, the messages it has sent. */
	run: { id: string; botId: string; botName: string; variables: Record<string, unknown>; sent: number };
	/** The conversation as the current job read it (./core/scene.ts), loaded once per job. */
	scene(): Promise<Scene>;
	/** Forgets the scene: an action may have changed what templates read (the contact, the assignee). */
	forgetScene(): void;
	/** The effect is done: drops it from the run's pending ones (a message also counts as sent). */
	done(sent?: boolean): void;
	/** An event for the run (an action's result, facts): its new state stored, with what is still pending. */
	feed(event: BotEvent, scene: Scene): void;
	/** Appends to the run's step log. */
	log(entry: LogEffect): void;
	typing(on: boolean): void;
	/** Stores the run's timer (synchronously), or drops it; `armAlarm` sets the room's alarm after. */
	setTimer(stepId: string, at: number): void;
	cancelTimer(): void;
	armAlarm(): Promise<void>;
	/** Posts through the room's one write path for messages. */
	post(message: CheckedMessage): Promise<PostOutcome>;
}

/** Performs one effect of a run and marks it done. Throws on a fault of ours (D1 down), for a retry. */
export async function performBotEffect(env: Env, room: BotRoom, effect: Effect): Promise<void> {
	switch (effect.kind) {
		case 'log':
			room.log(effect);
			return room.done();
		case 'typing':
			room.typing(effect.on);
			return room.done();
		case 'timer':
			room.setTimer(effect.stepId, effect.at);
			room.done();
			return room.armAlarm();
		case 'cancel_timer':
			room.cancelTimer();
			room.done();
			return room.armAlarm();
		case 'message': {
			const problem = await say(room, effect);
			if (problem) room.log({ kind: 'log', stepId: 'message', error: problem });
			return room.done(true);
		}
		case 'transfer': {
			// The conversation deleted meanwhile is nothing to hand over: logged, and the run goes on.
			const log: StepLog = {
				recorded: async () => null,
				record: async (_key, _action, result) => {
					if (!result.ok) room.log({ kind: 'log', stepId: 'transfer', error: result.error });
					room.done();
				},
			};
			await runStep(await actionContext(env, room, await room.scene()), log, 'transfer', {
				type: 'assign',
				handoff: true,
			});
			return;
		}
		case 'facts': {
			const scene = await room.scene();
			const scope = {
				workspaceId: room.workspaceId,
				conversationId: room.conversationId,
				contactId: scene.contactId,
				variables: room.run.variables,
				now: Date.now(),
			};
			const facts = await loadFacts(env, await workspaceDb(env, room.workspaceId), scope, effect.roots);
			return room.feed({ type: 'facts', stepId: effect.stepId, facts }, scene);
		}
		case 'action': {
			// The run's pending list is its record: an action done is gone from it, with its result fed back.
			const log: StepLog = {
				recorded: async () => null,
				record: async (_key, _action, result) => {
					room.forgetScene();
					room.feed({ type: 'result', stepId: effect.step.id, ...result }, await room.scene());
				},
			};
			// `step:` keeps a step's key apart from the messages' counters (a step id may be all digits).
			await runStep(await actionContext(env, room, await room.scene()), log, `step:${effect.step.id}`, effect.step);
			return;
		}
	}
}

async function actionContext(env: Env, room: BotRoom, scene: Scene): Promise<ActionContext> {
	return contextIn(env, await workspaceDb(env, room.workspaceId), room.workspaceId, scene, {
		run: { kind: 'bot', id: room.run.id },
		actor: { kind: 'bot', id: room.run.botId },
		// What a notify step's event names: the bot as it was named when the run started.
		bot: { id: room.run.botId, name: room.run.botName },
		variables: room.run.variables,
		now: Date.now(),
	});
}

/** Posts a bot message through the room's write path; its client id makes a repeat (after a loss) a replay. */
async function say(room: BotRoom, effect: Extract<Effect, { kind: 'message' }>): Promise<string | null> {
	// The run's messages are its steps, keyed by how many it sent before.
	const key = idempotencyKey('bot', room.run.id, room.run.sent);
	const checked = botMessage(room.workspaceId, room.conversationId, room.run.botId, key, effect);
	if (!checked.ok)
		return `message not sent: ${checked.problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ')}`;
	const outcome = await room.post(checked.message);
	return outcome.status === 'created' || outcome.status === 'replayed' ? null : `message not sent: ${outcome.status}`;
}
