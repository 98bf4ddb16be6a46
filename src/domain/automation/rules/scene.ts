/**
 * The scene of an event's rules, read once for all the rules the event meets: the conversation and the contact
 * it is about (a contact's or a deal's event acts in the contact's latest open conversation), the facts their
 * conditions reference, the records their templates read, the workspace's locale and time zone.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { conversations } from '../../../db/schema';
import { type FactRoot, referencedFacts } from '../../../engines/conditions';
import type { RuleFacts, RuleSnapshot } from '../../../engines/rules';
import { iso } from '../../../lib/ids';
import { availabilityAt } from '../../../model/business-hours';
import type { DomainEvent } from '../../../model/events';
import { ruleTemplateRecords } from '../../../model/rule-variables';
import { latestConversation } from '../../conversations/conversations';
import { loadWidgetSettings } from '../../widget/settings';
import type { ActionScene } from '../core/scene';
import { conversationRecord, loadFacts } from '../facts';
import { eventAgent, type TemplateScene } from './templates';

/** The conversation and the contact an event is about (a contact's conversation is looked up later). */
function subjectsOf(event: DomainEvent): { conversationId: string | null; contactId: string | null } {
	const p = event.payload as Record<string, unknown>;
	const conversation = p.conversation as { id: string; contactId: string } | undefined;
	if (conversation) return { conversationId: conversation.id, contactId: conversation.contactId };
	const message = p.message as { conversationId: string } | undefined;
	if (message) return { conversationId: message.conversationId, contactId: null };
	const target = p.target as { kind: string; id: string } | undefined;
	if (target)
		return target.kind === 'contact'
			? { conversationId: null, contactId: target.id }
			: { conversationId: target.id, contactId: null };
	const contact = p.contact as { id: string } | undefined;
	if (contact) return { conversationId: null, contactId: contact.id };
	const deal = p.deal as { contactId: string | null } | undefined;
	if (deal) return { conversationId: null, contactId: deal.contactId };
	return { conversationId: null, contactId: null };
}

/** The core's scene (what the actions act in) with what the rules read: the facts and the template records. */
export interface RuleScene extends ActionScene, TemplateScene {
	conversationId: string | null;
	contactId: string | null;
	facts: RuleFacts;
}

/** What the candidate rules need to know about the event's world, read once for them all. */
export async function sceneOf(
	env: Env,
	db: Database,
	event: DomainEvent,
	rules: RuleSnapshot[],
	now: number,
): Promise<RuleScene> {
	let { conversationId, contactId } = subjectsOf(event);
	// The conversation read once: its facts, its contact, when it began and since when its customer waits.
	const conversation =
		conversationId === null ? undefined : await conversationRecord(db, event.workspaceId, conversationId);
	if (conversationId !== null && !conversation) conversationId = null;
	contactId ??= conversation?.contactId ?? null;
	let acting = conversation;
	// A contact's or a deal's event: its actions act in the contact's latest open conversation, if it has one.
	if (conversationId === null && contactId !== null) {
		conversationId = await latestConversation(db, event.workspaceId, contactId, { channels: null, open: true });
		acting = conversationId === null ? undefined : await conversationRecord(db, event.workspaceId, conversationId);
	}
	const roots = new Set<FactRoot>(['contact', 'conversation']);
	for (const rule of rules) if (rule.condition) for (const root of referencedFacts(rule.condition)) roots.add(root);
	// What the rules' templates read (src/model/rule-variables.ts): a deal rule's deal is loaded with the facts.
	for (const rule of rules) if (ruleTemplateRecords(rule.trigger.kind).has('deal')) roots.add('deal');
	const kinds = new Set(rules.map((r) => r.trigger.kind));
	const settings = loadWidgetSettings(db, event.workspaceId);
	// A deal's event is about that deal: its conditions and templates read it, not the contact's latest one.
	const dealId = (event.payload as { deal?: { id: string } }).deal?.id;
	const scope = {
		workspaceId: event.workspaceId,
		conversationId,
		contactId,
		variables: dealId === undefined ? {} : { deal_id: dealId },
		now,
		known: acting ? { conversation: acting.facts } : {},
		settings,
	};
	const [facts, { settings: widget }, previous, agentNow] = await Promise.all([
		loadFacts(env, db, scope, roots),
		settings,
		kinds.has('new_contact') && conversationId !== null && contactId !== null && conversation
			? db
					.select({ at: sql<number | null>`max(${conversations.createdAt})` })
					.from(conversations)
					.where(
						and(
							eq(conversations.workspaceId, event.workspaceId),
							eq(conversations.contactId, contactId),
							sql`${conversations.id} != ${conversationId}`,
							sql`${conversations.createdAt} <= ${conversation.createdAt}`,
						),
					)
					.get()
			: undefined,
		eventAgent(db, event, acting?.assignee ?? null),
	]);
	const ruleFacts: RuleFacts = { ...facts, previousConversationAt: previous?.at ?? null };
	if (event.type === 'message.created') {
		ruleFacts.withinBusinessHours = availabilityAt(
			widget.businessHours,
			new Date(event.payload.message.createdAt),
		).online;
	}
	if (conversation)
		ruleFacts.stillWaitingSince = conversation.waitingSince === null ? null : iso(conversation.waitingSince);
	return {
		conversationId,
		contactId,
		facts: ruleFacts,
		contact: facts.contact,
		conversation: facts.conversation,
		agent: agentNow,
		deal: facts.deal,
		timeZone: widget.businessHours.timeZone,
		locale: widget.locale,
	};
}
