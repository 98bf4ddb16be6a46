import { type Database, runBatch } from '../db/client';
import { events } from '../db/schema';
import { groupByShard, workspaceDb } from '../db/shards';
import { alertTeam } from '../domain/alerts/deliver';
import { assigningWorkspaces, assignmentSignal } from '../domain/assignment/auto-assignment';
import { isDealStageEvent, startDealBots } from '../domain/automation/bots/deal-bots';
import { ExecutionBusy } from '../domain/automation/rules/executions';
import { enabledRules, type ListeningRule, runRules } from '../domain/automation/rules/runner';
import { type EventScenario, eventScenarios, startEventScenarios } from '../domain/automation/scenarios/triggers';
import { campaigningWorkspaces, recordCampaignReply } from '../domain/campaigns/results';
import { notifyTeam } from '../domain/channels/email/notifications';
import { mailingWorkspaces } from '../domain/channels/email/replies';
import { deliverToChannels } from '../domain/channels/outbound';
import { TeamReads } from '../domain/team/team-reads';
import { fanOut, type ListeningEndpoint, listeningEndpoints } from '../domain/webhooks/deliveries';
import { type DomainEvent, domainEventSchema } from '../model/events';

/** Rows per insert: D1 binds at most 100 parameters to a statement, and an event row takes 7. */
const ROWS_PER_INSERT = 14;
/** Workspace ids per read of a batch's listeners (a batch holds at most 100 events). */
const WORKSPACES_PER_READ = 90;

/**
 * Records events in the events log, idempotent by event id (the Queue and our outboxes deliver at least
 * once), in one D1 round trip whatever their number: each event is otherwise a statement of its own on the
 * database every write shares.
 */
async function recordEvents(db: Database, list: DomainEvent[], now = Date.now()): Promise<void> {
	if (list.length === 0) return;
	const rows = list.map((event) => ({
		id: event.id,
		workspaceId: event.workspaceId,
		type: event.type,
		occurredAt: Date.parse(event.occurredAt),
		actor: event.actor,
		payload: event.payload,
		recordedAt: now,
	}));
	const inserts = [];
	for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
		inserts.push(
			db
				.insert(events)
				.values(rows.slice(i, i + ROWS_PER_INSERT))
				.onConflictDoNothing({ target: events.id }),
		);
	}
	await runBatch(db, inserts);
}

/** Who listens to a batch's events: its workspaces' event scenarios, webhook endpoints and rules, read once. */
interface Listeners {
	scenarios: Map<string, EventScenario[]>;
	endpoints: Map<string, ListeningEndpoint[]>;
	rules: Map<string, ListeningRule[]>;
	/** The workspaces with auto-assignment on (an enabled assignment rule). */
	assigning: Set<string>;
	/** The workspaces with a campaign started within the reply window: a contact's message may be a reply. */
	campaigning: Set<string>;
	/** The workspaces that set up mail: asked only of a message event that does not name its channel. */
	mailing: Set<string>;
}

async function listenersOf(db: Database, list: DomainEvent[]): Promise<Listeners> {
	const workspaceIds = [...new Set(list.map((event) => event.workspaceId))];
	const listeners: Listeners = {
		scenarios: new Map(),
		endpoints: new Map(),
		rules: new Map(),
		assigning: new Set(),
		campaigning: new Set(),
		mailing: new Set(),
	};
	// D1 binds at most 100 parameters to a statement: the ids go in slices that leave room for the others.
	for (let i = 0; i < workspaceIds.length; i += WORKSPACES_PER_READ) {
		const slice = workspaceIds.slice(i, i + WORKSPACES_PER_READ);
		const [scenarios, endpoints, rules, assigning, campaigning, mailing] = await Promise.all([
			eventScenarios(db, slice),
			listeningEndpoints(db, slice),
			enabledRules(db, slice),
			assigningWorkspaces(db, slice),
			campaigningWorkspaces(db, slice),
			mailingWorkspaces(db, slice),
		]);
		for (const id of mailing) listeners.mailing.add(id);
		for (const id of assigning) listeners.assigning.add(id);
		for (const id of campaigning) listeners.campaigning.add(id);
		for (const [id, found] of scenarios) listeners.scenarios.set(id, found);
		for (const [id, found] of endpoints) listeners.endpoints.set(id, found);
		for (const [id, found] of rules) listeners.rules.set(id, found);
	}
	return listeners;
}

/**
 * What an event sets off: a deal entering a stage starts that stage's bots; the workspace's event scenarios
 * start on it; it goes to the workspace's outbound webhook endpoints; auto-assignment hears of it; the
 * automation rules it meets run; a contact's message is recorded as the reply to the campaigns that reached it;
 * a message for the customer goes to its channel's delivery (src/domain/channels/outbound.ts: mail, WhatsApp);
 * the team's notification mail is enqueued, and the team is alerted (src/domain/alerts/deliver.ts).
 * Idempotent by event id (a bot start, a scenario run, a delivery and a rule's execution are keyed by it).
 */
async function react(env: Env, db: Database, event: DomainEvent, listeners: Listeners, team: TeamReads): Promise<void> {
	if (isDealStageEvent(event)) await startDealBots(env, db, event);
	await startEventScenarios(env, db, event, listeners.scenarios.get(event.workspaceId) ?? []);
	await fanOut(env, db, event, Date.now(), listeners.endpoints.get(event.workspaceId) ?? []);
	if (listeners.assigning.has(event.workspaceId)) await signalAssignment(env, db, event);
	// An execution another delivery holds (the hub's prompt path, usually) makes this delivery retry, but only
	// after the reactions below: the team's alerts do not wait on a rule someone else is running.
	let busy: ExecutionBusy | null = null;
	try {
		await runRules(env, db, event, listeners.rules.get(event.workspaceId) ?? []);
	} catch (error) {
		if (!(error instanceof ExecutionBusy)) throw error;
		busy = error;
	}
	if (listeners.campaigning.has(event.workspaceId)) await recordCampaignReply(db, event);
	await deliverToChannels(env, db, event, listeners);
	await notifyTeam(env, db, event, team);
	await alertTeam(env, db, event, team);
	if (busy) throw busy;
}

/** Tells the workspace's hub what the event means for auto-assignment (a conversation to queue, room freed). */
async function signalAssignment(env: Env, db: Database, event: DomainEvent): Promise<void> {
	const signal = await assignmentSignal(db, event);
	if (signal === null) return;
	const hub = env.WORKSPACE_HUB.getByName(event.workspaceId);
	if (signal.kind === 'waiting') await hub.enqueueForAssignment(event.workspaceId, [signal.conversation], event.id);
	else await hub.assignmentChanged(event.workspaceId);
}

/** Handles one domain event: records it, then reacts to it. Idempotent by event id. */
export async function processEvent(env: Env, event: DomainEvent, now = Date.now()): Promise<void> {
	const db = await workspaceDb(env, event.workspaceId);
	await recordEvents(db, [event], now);
	await react(env, db, event, await listenersOf(db, [event]), new TeamReads(env, db));
}

/**
 * The events Queue consumer: the batch's events recorded in one round trip, then acked together; when that
 * fails, each event through `processEvent`, acked or retried on its own.
 */
export async function consumeEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	const received: Received[] = [];
	for (const message of batch.messages) {
		const result = domainEventSchema.safeParse(message.body);
		if (result.success) received.push({ message, event: result.data });
		else {
			console.error('dropping malformed event', message.id);
			message.ack();
		}
	}
	// Each shard's events are recorded in, and reacted to from, the shard of their workspace (src/db/shards.ts).
	const groups = await groupByShard(env, received, ({ event }) => event.workspaceId);
	await Promise.all(groups.map(({ db, items }) => consumeOn(env, db, items)));
}

/** One event of a batch, with its Queue message. */
interface Received {
	message: Message<unknown>;
	event: DomainEvent;
}

/** Records and reacts to `received`, whose workspaces are all on the shard `db`. */
async function consumeOn(env: Env, db: Database, received: Received[]): Promise<void> {
	const valid = received.map(({ event }) => event);
	try {
		await recordEvents(db, valid);
	} catch (error) {
		console.error('recording an event batch failed; recording its events one by one', error);
		for (const { message, event } of received) {
			try {
				await processEvent(env, event);
				message.ack();
			} catch (failure) {
				console.error('event failed, will retry', message.id, failure);
				message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
			}
		}
		return;
	}
	let listeners: Listeners;
	try {
		listeners = await listenersOf(db, valid);
	} catch (error) {
		console.error('reading who listens to an event batch failed; the batch will be retried', error);
		for (const { message } of received) message.retry({ delaySeconds: 5 });
		return;
	}
	// Each conversation's events in their order, conversations side by side (a few at a time): one event's
	// reactions wait on D1 and the hub, so a batch worked through in one line took about 10 ms an event.
	const lines = new Map<string, Received[]>();
	for (const item of received) {
		const key = orderKey(item.event);
		const line = lines.get(key) ?? [];
		line.push(item);
		lines.set(key, line);
	}
	// The team's members, settings and presence, read once per workspace for the whole batch.
	const team = new TeamReads(env, db);
	await inParallel([...lines.values()], LINES_AT_ONCE, async (line) => {
		for (const { message, event } of line) {
			try {
				await react(env, db, event, listeners, team);
				message.ack();
			} catch (error) {
				// Recorded already (idempotent by id): the retry reacts again, and finds what a first try began.
				console.error('reacting to an event failed, will retry', message.id, error);
				message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
			}
		}
	});
}

/** Lines of events worked at once within a batch. */
const LINES_AT_ONCE = 8;

/**
 * The line an event keeps its order in: its conversation's, else its workspace's (a contact's, a deal's or a
 * setting's events stay in the order they came, as one line).
 */
function orderKey(event: DomainEvent): string {
	const payload = event.payload as {
		conversation?: { id?: unknown };
		message?: { conversationId?: unknown };
		conversationId?: unknown;
	};
	const conversationId = payload.conversation?.id ?? payload.message?.conversationId ?? payload.conversationId;
	return typeof conversationId === 'string' ? `conversation:${conversationId}` : `workspace:${event.workspaceId}`;
}

/** Runs `work` on every item, at most `limit` at a time. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const item = items[next++] as T;
			await work(item);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
