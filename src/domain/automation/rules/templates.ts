/**
 * What a classic rule's templates read, built from the table of src/model/rule-variables.ts: each rule gets
 * the records its trigger fills, taken from its event's scene, which the runner loaded once for all the rules
 * the event meets (src/domain/automation/rules/runner.ts). The table is the contract; nothing here reads D1 per rule,
 * except the assignee after a rule's own `assign` (the agent a later action names is the one it assigned).
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { conversations, operators } from '../../../db/schema';
import type { TemplateInput } from '../../../engines/templates';
import type { DomainEvent } from '../../../model/events';
import { type RuleTriggerKind, ruleTemplateRecords } from '../../../model/rule-variables';

export interface Agent {
	id: string;
	name: string;
}

/** What the runner loaded for an event's rules: the records a template may read. */
export interface TemplateScene {
	contactId: string | null;
	/** The contact's facts (src/domain/automation/facts.ts), when the event has a contact. */
	contact: unknown;
	/** The facts of the conversation the rules act in, when there is one. */
	conversation: unknown;
	/** Its assignee (for an assignment, the operator just assigned), or null. */
	agent: Agent | null;
	/** The deal facts, loaded when a rule's trigger fills `deal`. */
	deal: unknown;
	timeZone: string;
}

/** The records of the event itself that a trigger's templates read, by name. */
function eventRecords(event: DomainEvent): Record<string, () => unknown> {
	const p = event.payload as Record<string, unknown>;
	return {
		message: () => ({ text: (p.message as { text?: string } | undefined)?.text ?? '' }),
		tag: () => ({
			name: (p.tag as { name?: string } | undefined)?.name ?? '',
			target: (p.target as { kind?: string } | undefined)?.kind ?? '',
		}),
		waiting: () => ({ minutes: p.minutes, since: p.waitingSince }),
	};
}

/**
 * The template input of a rule with this trigger: the records its table lists, and for every rule the event
 * and the change (`vars.event`, `vars.change`, which its condition reads too).
 */
export function ruleTemplateInput(
	kind: RuleTriggerKind,
	event: DomainEvent,
	scene: TemplateScene,
	change: { from: unknown; to: unknown } | null,
	now: number,
): TemplateInput {
	const records = ruleTemplateRecords(kind);
	const variables: Record<string, unknown> = { event, change };
	for (const [name, value] of Object.entries(eventRecords(event))) if (records.has(name)) variables[name] = value();
	if (records.has('deal')) variables.deal = scene.deal ?? {};
	const contact = scene.contact as
		| { name: string | null; email: string | null; phone: string | null; customFields: Record<string, unknown> }
		| undefined;
	const conversation = scene.conversation as { id: string; channel: string } | undefined;
	return {
		...(records.has('contact')
			? { contact: scene.contactId !== null && contact ? { id: scene.contactId, ...contact } : null }
			: {}),
		...(records.has('conversation')
			? { conversation: conversation ? { id: conversation.id, channel: conversation.channel } : null }
			: {}),
		...(records.has('agent') ? { agent: scene.agent } : {}),
		variables,
		timeZone: scene.timeZone,
		now,
	};
}

/**
 * The agent of an event's rules: the assignee of the conversation they act in (read with it), or for an
 * assignment the operator it announces, though the conversation may have moved on since (one read then).
 */
export function eventAgent(db: Database, event: DomainEvent, assignee: Agent | null): Promise<Agent | null> {
	const assigned = event.type === 'conversation.updated' ? (event.payload.changes.assigneeId?.to ?? null) : null;
	if (assigned === null || assigned === assignee?.id) return Promise.resolve(assignee);
	return agentById(db, event.workspaceId, assigned);
}

/** An operator of the workspace as a template's `agent`, or null (none, or deleted since). */
async function agentById(db: Database, workspaceId: string, id: string | null): Promise<Agent | null> {
	if (id === null) return null;
	const row = await db
		.select({ id: operators.id, name: operators.name })
		.from(operators)
		.where(and(eq(operators.workspaceId, workspaceId), eq(operators.id, id)))
		.get();
	return row ?? null;
}

/** The conversation's assignee now, as a template's `agent`. */
export async function currentAgent(db: Database, workspaceId: string, conversationId: string): Promise<Agent | null> {
	const row = await db
		.select({ id: operators.id, name: operators.name })
		.from(conversations)
		.innerJoin(
			operators,
			and(eq(operators.workspaceId, conversations.workspaceId), eq(operators.id, conversations.assigneeId)),
		)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, conversationId)))
		.get();
	return row ?? null;
}
