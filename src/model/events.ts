/**
 * The domain event catalogue: every state change Parley makes is announced as exactly one of these events on
 * the events Queue. Automation rules, scenarios, outbound webhooks and the operators' live feed consume them,
 * so this module is their contract: add a type here before emitting it anywhere.
 *
 * Delivery is at least once. Consumers must be idempotent by `id`.
 */
import { z } from '@hono/zod-openapi';
import { iso, newId } from '../lib/ids';
import { type Actor, actorSchema, SYSTEM } from './actor';
import { EVENT_PAYLOADS, type EventPayload, type EventType } from './event-payloads';

export { DOMAIN_EVENT_TYPES, EVENT_PAYLOADS, type EventPayload, type EventType } from './event-payloads';

const envelope = <T extends EventType>(type: T) =>
	z.object({
		id: z.string(),
		type: z.literal(type),
		workspaceId: z.string(),
		occurredAt: z.string(),
		// Events queued before the field existed were all caused by the API's operators or visitors; the
		// system is the honest default for them.
		actor: actorSchema.default(SYSTEM),
		payload: EVENT_PAYLOADS[type],
	});

/** Any event, parsed by its `type`: what a consumer runs on every message it receives. */
export const domainEventSchema = z.discriminatedUnion('type', [
	envelope('conversation.created'),
	envelope('conversation.updated'),
	envelope('conversation.read'),
	envelope('conversation.waiting'),
	envelope('message.created'),
	envelope('contact.created'),
	envelope('contact.updated'),
	envelope('contact.deleted'),
	envelope('contact.merged'),
	envelope('tag.created'),
	envelope('tag.updated'),
	envelope('tag.deleted'),
	envelope('tag.applied'),
	envelope('tag.removed'),
	envelope('member.created'),
	envelope('member.updated'),
	envelope('member.deleted'),
	envelope('member.status_changed'),
	envelope('group.created'),
	envelope('group.updated'),
	envelope('group.deleted'),
	envelope('funnel.created'),
	envelope('funnel.updated'),
	envelope('funnel.deleted'),
	envelope('deal.created'),
	envelope('deal.updated'),
	envelope('deal.stage_changed'),
	envelope('deal.deleted'),
	envelope('note.created'),
	envelope('task.created'),
	envelope('task.updated'),
	envelope('task.deleted'),
	envelope('canned_reply.created'),
	envelope('canned_reply.updated'),
	envelope('canned_reply.deleted'),
	envelope('custom_field.created'),
	envelope('custom_field.updated'),
	envelope('custom_field.deleted'),
	envelope('bot.created'),
	envelope('bot.updated'),
	envelope('bot.published'),
	envelope('bot.deleted'),
	envelope('bot.run_started'),
	envelope('bot.run_ended'),
	envelope('bot.notification'),
	envelope('scenario.created'),
	envelope('scenario.updated'),
	envelope('scenario.published'),
	envelope('scenario.deleted'),
	envelope('scenario.run_ended'),
	envelope('scenario.paused'),
	envelope('rule.created'),
	envelope('rule.updated'),
	envelope('rule.deleted'),
	envelope('rule.notification'),
	envelope('assignment_rule.created'),
	envelope('assignment_rule.updated'),
	envelope('assignment_rule.deleted'),
	envelope('webhook_endpoint.disabled'),
	envelope('mail.sent'),
	envelope('mail.failed'),
]);

export type DomainEvent = z.infer<typeof domainEventSchema>;

/**
 * Event types an operator's live inbox feed carries: what an inbox shows. Conversations and their messages;
 * the tags a conversation's `PUT`/`DELETE …/tags/{name}` applies or removes (a `PATCH` announces them in
 * `conversation.updated` too); the contact beside them (renamed, merged into another); and who on the team
 * is available; and, for admins, a scenario flood protection paused.
 */
export const LIVE_FEED_TYPES: readonly EventType[] = [
	'conversation.created',
	'conversation.updated',
	'conversation.read',
	'message.created',
	'tag.applied',
	'tag.removed',
	'contact.updated',
	'contact.merged',
	'member.status_changed',
	'rule.notification',
	'bot.notification',
	'scenario.paused',
];

/**
 * Event types whose reactions a person may be waiting on: a conversation's start, its messages and changes,
 * a tag applied to it, a bot's hand-over. Besides the events Queue they go straight to their workspace's hub,
 * which assigns and runs the rules a person sees without the Queue's batch wait (durable-objects/hub-prompt.ts).
 */
export const PROMPT_TYPES: readonly EventType[] = [
	'conversation.created',
	'conversation.updated',
	'message.created',
	'tag.applied',
	'bot.run_ended',
];

/**
 * Whether the hub should hear of the event at once (PROMPT_TYPES). Of the messages, only a customer's, and a
 * conversation's first (an operator opening it): nothing reacts to the team's later messages but the feed, so
 * a room whose workspace has no console open still spares the hub a call for each of them.
 */
export function isPrompt(event: DomainEvent): boolean {
	if (!PROMPT_TYPES.includes(event.type)) return false;
	if (event.type !== 'message.created') return true;
	const { message } = event.payload;
	return !message.private && (message.authorKind === 'contact' || message.seq === 1);
}

/** Feed events only admins receive: what only they can act on. */
export const ADMIN_FEED_TYPES: readonly EventType[] = ['scenario.paused'];

/**
 * Builds an event with a fresh id, caused by `actor`. The id is fixed here, once, so that every retry of its delivery carries
 * the same id and consumers can drop the repeats.
 */
export function newEvent<T extends EventType>(
	type: T,
	workspaceId: string,
	actor: Actor,
	payload: EventPayload<T>,
	now = Date.now(),
): DomainEvent {
	return { id: newId('evt', now), type, workspaceId, occurredAt: iso(now), actor, payload } as DomainEvent;
}

/**
 * The `changed` and `changes` of an update event from the changes alone, so the list of changed fields is
 * always the keys of the changes: `{ ...changesOf({ status: { from: 'open', to: 'closed' } }) }`.
 */
export function changesOf<C extends Record<string, { from: unknown; to: unknown }>>(changes: C) {
	return { changed: Object.keys(changes) as Array<keyof C & string>, changes };
}
