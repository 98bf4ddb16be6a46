/**
 * What a classic rule's templates read, per trigger: written once, with no dependency, for the rule runner
 * (which loads the records its rules' triggers fill, once per event, and gives each rule only its trigger's),
 * the API document (each trigger's description), docs/automation.md's table (a test compares them) and the
 * console's rule editor. A variable's name is its path in the template: `{{ agent.name }}`.
 */

export interface RuleTemplateVariable {
	/** The path, as written in a template; `<key>` stands for a custom field's key. */
	name: string;
	meaning: string;
}

/** The record a variable belongs to: `contact` for `contact.name`. */
export function recordOf(name: string): string {
	return name.split('.')[0] ?? name;
}

const CONTACT: RuleTemplateVariable[] = [
	{ name: 'contact.id', meaning: 'the contact the event is about (a conversation’s, a deal’s)' },
	{ name: 'contact.name', meaning: 'its name' },
	{ name: 'contact.email', meaning: 'its e-mail address' },
	{ name: 'contact.phone', meaning: 'its phone number' },
	{ name: 'contact.custom_fields.<key>', meaning: 'its custom field of that key' },
];

const CONVERSATION: RuleTemplateVariable[] = [
	{
		name: 'conversation.id',
		meaning: 'the conversation the rule acts in (for a contact’s or a deal’s event, the contact’s latest open one)',
	},
	{ name: 'conversation.channel', meaning: 'its channel' },
];

const AGENT: RuleTemplateVariable[] = [
	{
		name: 'agent.id',
		meaning: 'the conversation’s assignee when the action runs (after the rule’s own `assign`, that operator)',
	},
	{ name: 'agent.name', meaning: 'the assigned operator’s name' },
];

/** What every trigger fills: the contact, its conversation and that conversation's assignee. */
const RECORDS = [...CONTACT, ...CONVERSATION, ...AGENT];

const change = (from: string, to: string): RuleTemplateVariable[] => [
	{ name: 'change.from', meaning: from },
	{ name: 'change.to', meaning: to },
];

/**
 * The variables each trigger fills, beyond those every rule reads (`RULE_TEMPLATE_COMMON`). A variable whose
 * record the event has none of (a contact without a conversation, a conversation nobody is assigned) renders
 * empty, as any missing variable does (`default` gives it a value).
 */
export const RULE_TEMPLATE_VARIABLES = {
	new_contact: RECORDS,
	conversation_assigned: [
		...CONTACT,
		...CONVERSATION,
		{ name: 'agent.id', meaning: 'the operator just assigned' },
		{ name: 'agent.name', meaning: 'its name' },
		...change('the previous assignee’s id, empty when it had none', 'the new assignee’s id'),
	],
	conversation_closed: [...RECORDS, ...change('the status before, `open` or `pending`', '`closed`')],
	message_outside_hours: [...RECORDS, { name: 'message.text', meaning: 'the customer’s message' }],
	tag_applied: [
		...RECORDS,
		{ name: 'tag.name', meaning: 'the tag applied' },
		{ name: 'tag.target', meaning: '`contact` or `conversation`, what it was applied to' },
	],
	custom_field_updated: [...RECORDS, ...change('the field’s value before', 'its value now')],
	conversation_waiting: [
		...RECORDS,
		{ name: 'waiting.minutes', meaning: 'the minutes the customer has waited (the trigger’s)' },
		{ name: 'waiting.since', meaning: 'since when (ISO 8601)' },
	],
	deal_stage_changed: [
		...RECORDS,
		{ name: 'deal.id', meaning: 'the deal that moved' },
		{ name: 'deal.name', meaning: 'its name' },
		{ name: 'deal.status', meaning: '`open`, `won` or `lost`' },
		{ name: 'deal.stage', meaning: 'the stage it entered' },
		{ name: 'deal.funnel', meaning: 'its funnel' },
		{ name: 'deal.value', meaning: 'its value in minor units (cents)' },
		{ name: 'deal.currency', meaning: 'the value’s ISO 4217 code' },
		{ name: 'change.from.name', meaning: 'the stage it left' },
		{ name: 'change.to.name', meaning: 'the stage it entered' },
	],
} as const satisfies Record<string, readonly RuleTemplateVariable[]>;

export type RuleTriggerKind = keyof typeof RULE_TEMPLATE_VARIABLES;

/** What every rule's templates read, whatever its trigger. */
export const RULE_TEMPLATE_COMMON: readonly RuleTemplateVariable[] = [
	{ name: 'current_date', meaning: 'today in the workspace’s time zone (YYYY-MM-DD)' },
	{ name: 'current_time', meaning: 'the time there (HH:mm)' },
	{ name: 'now', meaning: 'the instant, for `date`' },
	{ name: 'vars.event', meaning: 'the whole event, as outbound webhooks receive it' },
];

/** The records a trigger's templates read: what the runner loads for it. */
export function ruleTemplateRecords(kind: RuleTriggerKind): Set<string> {
	return new Set(RULE_TEMPLATE_VARIABLES[kind].map((v) => recordOf(v.name)));
}

/** Every name a trigger's templates read, its own and the common ones: what the console's editor lists. */
export function ruleVariableNames(kind: RuleTriggerKind): string[] {
	return [...RULE_TEMPLATE_VARIABLES[kind], ...RULE_TEMPLATE_COMMON].map((v) => v.name);
}

/** What a trigger's templates read, for the API document's description of the trigger. */
export function ruleVariablesSentence(kind: RuleTriggerKind): string {
	return `Its templates read ${grouped(RULE_TEMPLATE_VARIABLES[kind].map((v) => v.name)).join(', ')}.`;
}

/** Groups of names as one code span each: `contact.{id, name}`, `message.text`. */
function grouped(names: readonly string[]): string[] {
	const groups = new Map<string, string[]>();
	for (const name of names) {
		const record = recordOf(name);
		groups.set(record, [...(groups.get(record) ?? []), name.slice(record.length + 1)]);
	}
	return [...groups].map(([record, fields]) =>
		fields.length === 1 ? `\`${record}.${fields[0]}\`` : `\`${record}.{${fields.join(', ')}}\``,
	);
}

/**
 * docs/automation.md's list of what each trigger's templates read: the records every trigger fills, then a
 * table of what each adds or means otherwise (a test keeps that copy equal to it).
 */
export function ruleVariablesMarkdown(): string {
	const common = RECORDS.map((v) => v.name);
	const own = (kind: RuleTriggerKind) =>
		RULE_TEMPLATE_VARIABLES[kind]
			.filter((v) => !RECORDS.some((r) => r.name === v.name && r.meaning === v.meaning))
			.map((v) => `\`${v.name}\`: ${v.meaning}`)
			.join('; ') || 'nothing more';
	const everyRule = [...grouped(common), ...RULE_TEMPLATE_COMMON.map((v) => `\`${v.name}\``)];
	return [
		`Every rule's templates read ${everyRule.join(', ')}. Besides:`,
		'',
		'| Trigger | Its templates also read |',
		'|---|---|',
		...(Object.keys(RULE_TEMPLATE_VARIABLES) as RuleTriggerKind[]).map((kind) => `| \`${kind}\` | ${own(kind)} |`),
	].join('\n');
}
