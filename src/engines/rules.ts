/**
 * Classic automation rules, the pure half: the spec's triggers and how a domain event meets one. A rule is a
 * trigger, an optional condition and an ordered list of actions; `firing(rule, event, facts)` says whether an
 * event fires it, and why not when it does not, from the event and the facts its runner loaded (the contact,
 * the conversation, the deal, business hours, the contact's previous conversation). The runner on the events
 * Queue (src/domain/automation/rules/runner.ts) performs the actions.
 *
 * A rule never fires on a change it made itself (the event's actor is the rule), and a change made by a rule
 * carries the chain's depth in its actor: past MAX_CHAIN_DEPTH rules stop firing, so two rules cannot loop.
 * `conversation_waiting` is met by the `conversation.waiting` event a sweep sends once per waiting period.
 */
import { z } from '@hono/zod-openapi';
import type { Actor } from '../model/actor';
import { type RuleTriggerKind, ruleVariablesSentence } from '../model/rule-variables';
import { type Condition, evaluate, type Facts } from './conditions';

/**
 * What a rule reads of a domain event (src/model/events.ts): its type, when and by whom it happened, and
 * its payload, read by the trigger that expects it.
 */
export interface RuleEvent {
	type: string;
	occurredAt: string;
	actor: Actor;
	payload: unknown;
}

/** Rules triggering rules stop at this depth. */
export const MAX_CHAIN_DEPTH = 3;

/** A trigger's description, with what its templates read (src/model/rule-variables.ts, the one table). */
const described = (kind: RuleTriggerKind, what: string) => ({ description: `${what} ${ruleVariablesSentence(kind)}` });

export const ruleTriggerSchema = z
	.discriminatedUnion('kind', [
		z.strictObject({
			kind: z
				.literal('new_contact')
				.openapi(
					described(
						'new_contact',
						'A conversation from a contact without a recent one: a new contact, or one back after the window.',
					),
				),
			windowDays: z
				.int()
				.min(1)
				.max(365)
				.default(30)
				.openapi({ description: 'What “recent” means: a conversation in the last N days (30 by default).' }),
		}),
		z.strictObject({
			kind: z
				.literal('conversation_assigned')
				.openapi(described('conversation_assigned', 'A conversation got an assignee.')),
		}),
		z.strictObject({
			kind: z.literal('conversation_closed').openapi(described('conversation_closed', 'A conversation was closed.')),
		}),
		z.strictObject({
			kind: z
				.literal('message_outside_hours')
				.openapi(described('message_outside_hours', 'A customer’s message outside the workspace’s business hours.')),
		}),
		z.strictObject({
			kind: z.literal('tag_applied').openapi(described('tag_applied', 'A tag applied to a contact or a conversation.')),
			tag: z.string().trim().min(1).max(64).optional().openapi({ description: 'Only this tag (any when left out).' }),
		}),
		z.strictObject({
			kind: z
				.literal('custom_field_updated')
				.openapi(described('custom_field_updated', 'A contact’s custom field changed.')),
			field: z.string().trim().min(1).max(40).openapi({ description: 'The field’s key.' }),
		}),
		z.strictObject({
			kind: z
				.literal('conversation_waiting')
				.openapi(described('conversation_waiting', 'A customer waiting this long without an operator’s reply.')),
			minutes: z.int().min(1).max(10_080).openapi({ description: 'How long, in minutes (up to a week).' }),
		}),
		z.strictObject({
			kind: z.literal('deal_stage_changed').openapi(described('deal_stage_changed', 'A deal entering a stage.')),
			stageId: z.string().max(64).optional().openapi({ description: 'Only into this stage (any when left out).' }),
		}),
	])
	.openapi('RuleTrigger', { description: 'What fires the rule.' });

export type RuleTrigger = z.infer<typeof ruleTriggerSchema>;

export interface RuleSnapshot {
	id: string;
	trigger: RuleTrigger;
	condition: Condition | null;
}

/** What the runner knows beyond the event: what conditions read, and what some triggers need. */
export interface RuleFacts extends Facts {
	/** For `message_outside_hours`: whether the team is within business hours at the message's time. */
	withinBusinessHours?: boolean;
	/**
	 * For `conversation_waiting`: when the customer started waiting now (ISO 8601), or null: an operator may
	 * have replied between the sweep and the rule.
	 */
	stillWaitingSince?: string | null;
	/** For `new_contact`: when the contact's conversation before this one started (ms); null when it has none. */
	previousConversationAt?: number | null;
}

/**
 * An event's place in a rule chain: 0 for a person's or the system's change, n for the n-th rule's (the
 * runner stamps the depth on the actor its actions act as; a rule actor without one counts as 1).
 */
export function chainDepth(event: RuleEvent): number {
	return event.actor.kind === 'rule' ? (event.actor.depth ?? 1) : 0;
}

/**
 * Whether the event fires the rule: with the change it made, or why not. A refusal is `noted` when the event
 * was the trigger's own kind (a customer's message within business hours, a close by the rule itself): the
 * execution log says why the rule did not fire. Other events (a tag applied, for a close rule) are not noted.
 */
type Firing =
	| { fires: true; change: { from: unknown; to: unknown } | null }
	| { fires: false; why: string; noted: boolean };

const no = (why: string, noted = true): Firing => ({ fires: false, why, noted });
const other = (why: string): Firing => no(why, false);

/** Whether the event meets the trigger (before the condition), with the change it made when it has one. */
function meets(trigger: RuleTrigger, event: RuleEvent, facts: RuleFacts): Firing {
	const p = event.payload as Record<string, unknown>;
	const changes = (p.changes ?? {}) as Record<string, { from: unknown; to: unknown } | undefined>;
	switch (trigger.kind) {
		case 'new_contact': {
			if (event.type !== 'conversation.created') return other('not a new conversation');
			const previous = facts.previousConversationAt ?? null;
			const since = Date.parse(event.occurredAt) - trigger.windowDays * 86_400_000;
			return previous !== null && previous >= since
				? no(`the contact had a conversation in the last ${trigger.windowDays} days`)
				: { fires: true, change: null };
		}
		case 'conversation_assigned': {
			const change = changes.assigneeId;
			if (event.type !== 'conversation.updated' || !change) return other('no assignment');
			if (change.to === null) return no('unassigned, not assigned');
			return { fires: true, change };
		}
		case 'conversation_closed': {
			const change = changes.status;
			if (event.type !== 'conversation.updated' || change?.to !== 'closed') return other('not a close');
			return { fires: true, change };
		}
		case 'message_outside_hours': {
			const message = p.message as { authorKind?: string } | undefined;
			if (event.type !== 'message.created' || message?.authorKind !== 'contact') {
				return other('not a customer message');
			}
			if (facts.withinBusinessHours !== false) return no('within business hours');
			return { fires: true, change: null };
		}
		case 'tag_applied': {
			const tag = (p.tag as { name?: string } | undefined)?.name;
			if (event.type !== 'tag.applied') return other('not a tag applied');
			if (trigger.tag !== undefined && tag?.toLowerCase() !== trigger.tag.toLowerCase()) {
				return other(`not the tag ${trigger.tag}`);
			}
			return { fires: true, change: null };
		}
		case 'custom_field_updated': {
			const change = changes[`customFields.${trigger.field}`];
			if (event.type !== 'contact.updated' || !change) return other(`${trigger.field} did not change`);
			return { fires: true, change };
		}
		case 'deal_stage_changed': {
			if (event.type !== 'deal.stage_changed') return other('not a stage change');
			const to = (p.to as { id?: string } | undefined)?.id;
			if (trigger.stageId !== undefined && to !== trigger.stageId) return other('another stage');
			return { fires: true, change: { from: p.from ?? null, to: p.to ?? null } };
		}
		case 'conversation_waiting': {
			if (event.type !== 'conversation.waiting') return other('not a wait');
			if (p.minutes !== trigger.minutes) return other(`another wait than ${trigger.minutes} minutes`);
			if (facts.stillWaitingSince !== p.waitingSince) return no('an operator has replied since');
			return { fires: true, change: null };
		}
	}
}

/**
 * Whether the event may fire the rule, from the event alone: what the runner asks before it loads any facts.
 * A refusal that does not hang on facts (`other`) is never recorded, so a rule it refuses costs no query.
 */
export function mayFire(rule: RuleSnapshot, event: RuleEvent): boolean {
	const met = meets(rule.trigger, event, {});
	return met.fires || met.noted;
}

/**
 * Whether the event fires the rule. The condition reads the facts, `vars.event` (the event) and
 * `vars.change` (the changed attribute's previous and new value, for the triggers that have one).
 */
export function firing(rule: RuleSnapshot, event: RuleEvent, facts: RuleFacts): Firing {
	const met = meets(rule.trigger, event, facts);
	if (!met.fires) return met;
	if (event.actor.kind === 'rule' && event.actor.id === rule.id) return no('its own change');
	if (chainDepth(event) >= MAX_CHAIN_DEPTH) return no(`a chain of ${MAX_CHAIN_DEPTH} rules stops here`);
	if (rule.condition !== null && !evaluate(rule.condition, { ...facts, vars: { event, change: met.change } })) {
		return no('the condition does not hold');
	}
	return met;
}
