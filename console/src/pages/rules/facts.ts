/**
 * What a condition row may compare, per trigger: the facts the rule runner loads (src/domain/automation/facts.ts)
 * and, for the triggers that carry a change, its previous and new value (`vars.change.from` / `.to`, see
 * src/engines/rules.ts); for a message or a tag, the event's own data (`vars.event.payload…`). Each fact has
 * a kind that decides the operators offered and the value's input (a tag picker, an operator picker, …).
 */
import type { Directory } from '../../data/workspace';
import { t } from '../../i18n';
import type { Operator, TriggerKind } from './draft';

/** `tag`: one tag's name (compared as text, picked from the tags); `tags`: a record's list of tags. */
export type FactKind = 'text' | 'tag' | 'number' | 'boolean' | 'tags' | 'operator' | 'group' | 'choice';

export interface Fact {
	path: string;
	label: string;
	kind: FactKind;
	/** The choices of a `choice` fact (a status, a channel). */
	options?: readonly string[];
	/** Its heading in the picker. */
	section: string;
}

/** The operators offered per kind of fact, in the picker's order. */
export const OPERATORS_FOR: Record<FactKind, readonly Operator[]> = {
	text: [
		'eq',
		'neq',
		'contains',
		'not_contains',
		'starts_with',
		'ends_with',
		'in',
		'not_in',
		'matches',
		'is_set',
		'is_empty',
	],
	tag: ['eq', 'neq', 'in', 'not_in', 'starts_with'],
	number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is_set', 'is_empty'],
	boolean: ['eq', 'neq'],
	tags: ['contains', 'not_contains', 'in', 'not_in', 'is_set', 'is_empty'],
	operator: ['eq', 'neq', 'in', 'not_in', 'is_set', 'is_empty'],
	group: ['eq', 'neq', 'in', 'not_in', 'is_set', 'is_empty'],
	choice: ['eq', 'neq', 'in', 'not_in'],
};

export const STATUSES = ['open', 'pending', 'closed'] as const;
const CHANNELS = ['widget', 'api', 'whatsapp', 'email'] as const;

type CustomField = Directory['customFields'][number];

function customKind(field: CustomField): Pick<Fact, 'kind' | 'options'> {
	if (field.type === 'number') return { kind: 'number' };
	if (field.type === 'boolean') return { kind: 'boolean' };
	if (field.type === 'select') return { kind: 'choice', options: field.options ?? [] };
	return { kind: 'text' };
}

/** The previous and new value of what changed, for the triggers that carry one. */
function changeFacts(trigger: { kind: TriggerKind; field?: string }, directory: Directory | undefined): Fact[] {
	const section = t('rules.facts.change');
	const pair = (kind: Pick<Fact, 'kind' | 'options'>, from: string, to: string, suffix = ''): Fact[] => [
		{ path: `vars.change.from${suffix}`, label: from, section, ...kind },
		{ path: `vars.change.to${suffix}`, label: to, section, ...kind },
	];
	switch (trigger.kind) {
		case 'conversation_assigned':
			return pair({ kind: 'operator' }, t('rules.fact.previousAssignee'), t('rules.fact.newAssignee'));
		case 'conversation_closed':
			return [
				{
					path: 'vars.change.from',
					label: t('rules.fact.previousStatus'),
					section,
					kind: 'choice',
					options: STATUSES,
				},
			];
		case 'custom_field_updated': {
			const field = directory?.customFields.find((f) => f.entity === 'contact' && f.key === trigger.field);
			return pair(
				field ? customKind(field) : { kind: 'text' },
				t('rules.fact.previousValue'),
				t('rules.fact.newValue'),
			);
		}
		case 'deal_stage_changed':
			return pair({ kind: 'text' }, t('rules.fact.previousStage'), t('rules.fact.newStage'), '.name');
		case 'message_outside_hours':
			return [{ path: 'vars.event.payload.message.text', label: t('rules.fact.messageText'), section, kind: 'text' }];
		case 'tag_applied':
			return [
				{ path: 'vars.event.payload.tag.name', label: t('rules.fact.tagApplied'), section, kind: 'tag' },
				{
					path: 'vars.event.payload.target.kind',
					label: t('rules.fact.tagTarget'),
					section,
					kind: 'choice',
					options: ['conversation', 'contact'],
				},
			];
		case 'conversation_waiting':
			return [{ path: 'vars.event.payload.minutes', label: t('rules.fact.waitedMinutes'), section, kind: 'number' }];
		default:
			return [];
	}
}

/** Every fact a rule with this trigger may compare, grouped by section. */
export function ruleFacts(trigger: { kind: TriggerKind; field?: string }, directory: Directory | undefined): Fact[] {
	return [...changeFacts(trigger, directory), ...recordFacts(directory)];
}

/**
 * The facts of the records a flow is about, loaded for any condition that names them: the conversation, the
 * contact (its custom fields included), the team's hours and availability, the deal. A rule's and a bot's.
 */
export function recordFacts(directory: Directory | undefined): Fact[] {
	const contact = t('rules.facts.contact');
	const conversation = t('rules.facts.conversation');
	const team = t('rules.facts.team');
	const deal = t('rules.facts.deal');
	const custom = (directory?.customFields ?? [])
		.filter((f) => f.entity === 'contact')
		.map((f): Fact => ({ path: `contact.customFields.${f.key}`, label: f.label, section: contact, ...customKind(f) }));
	return [
		{
			path: 'conversation.channel',
			label: t('rules.fact.channel'),
			section: conversation,
			kind: 'choice',
			options: CHANNELS,
		},
		{
			path: 'conversation.status',
			label: t('rules.fact.status'),
			section: conversation,
			kind: 'choice',
			options: STATUSES,
		},
		{ path: 'conversation.assigneeId', label: t('rules.fact.assignee'), section: conversation, kind: 'operator' },
		{ path: 'conversation.groupId', label: t('rules.fact.group'), section: conversation, kind: 'group' },
		{ path: 'conversation.tags', label: t('rules.fact.conversationTags'), section: conversation, kind: 'tags' },
		{ path: 'contact.name', label: t('rules.fact.name'), section: contact, kind: 'text' },
		{ path: 'contact.email', label: t('rules.fact.email'), section: contact, kind: 'text' },
		{ path: 'contact.phone', label: t('rules.fact.phone'), section: contact, kind: 'text' },
		{ path: 'contact.tags', label: t('rules.fact.contactTags'), section: contact, kind: 'tags' },
		{ path: 'contact.conversationCount', label: t('rules.fact.conversationCount'), section: contact, kind: 'number' },
		...custom,
		{ path: 'businessHours.open', label: t('rules.fact.open'), section: team, kind: 'boolean' },
		{
			path: 'businessHours.period',
			label: t('rules.fact.period'),
			section: team,
			kind: 'choice',
			options: ['in_hours', 'out_of_hours', 'weekend', 'holiday'],
		},
		{ path: 'agents.available', label: t('rules.fact.available'), section: team, kind: 'number' },
		{ path: 'deal.name', label: t('rules.fact.dealName'), section: deal, kind: 'text' },
		{
			path: 'deal.status',
			label: t('rules.fact.dealStatus'),
			section: deal,
			kind: 'choice',
			options: ['open', 'won', 'lost'],
		},
		{ path: 'deal.stage', label: t('rules.fact.dealStage'), section: deal, kind: 'text' },
		{ path: 'deal.funnel', label: t('rules.fact.dealFunnel'), section: deal, kind: 'text' },
		{ path: 'deal.value', label: t('rules.fact.dealValue'), section: deal, kind: 'number' },
	];
}

/** What an assignment rule's condition may read: the conversation's channel and group. */
export function assignmentFacts(): Fact[] {
	const section = t('rules.facts.conversation');
	return [
		{ path: 'conversation.channel', label: t('rules.fact.channel'), section, kind: 'choice', options: CHANNELS },
		{ path: 'conversation.groupId', label: t('rules.fact.group'), section, kind: 'group' },
	];
}

/** The fact at `path`, or one made up for a path the catalogue lacks (a rule written through the API). */
export function factAt(facts: readonly Fact[], path: string): Fact {
	return facts.find((f) => f.path === path) ?? { path, label: path, kind: 'text', section: t('rules.facts.other') };
}
