/**
 * The event catalogue as a document for webhook receivers (docs/WEBHOOK_EVENTS.md), generated from the
 * catalogue's own zod schemas: for each type a sentence, the delivery's body with an example built from the
 * schema, and the payload's JSON Schema. A test regenerates it and compares it with the committed file, so
 * the document cannot drift from what is sent; another parses every example with the catalogue's schema.
 */
import { z } from '@hono/zod-openapi';
import { DOMAIN_EVENT_TYPES, type DomainEvent, EVENT_PAYLOADS, type EventType } from '../model/events';

/** One sentence per type: what happened. Typed by the catalogue, so a new type cannot be left out. */
const SUMMARIES: Record<EventType, string> = {
	'conversation.created': 'A conversation started (from the widget, the API, a bot or a scenario).',
	'conversation.updated': 'A conversation’s status, assignee, group, tags or contact changed.',
	'conversation.read': 'A visitor or an operator read a conversation up to a message.',
	'message.created': 'A message was added to a conversation, by anyone.',
	'contact.created': 'A contact was created.',
	'contact.updated': 'A contact’s fields changed; `changes` has each field before and after.',
	'contact.deleted': 'A contact was deleted.',
	'contact.merged': 'A duplicate contact was merged into another and deleted.',
	'tag.created': 'A tag was created in the workspace.',
	'tag.updated': 'A tag was renamed or recoloured.',
	'tag.deleted': 'A tag was deleted (and removed from everything it was on).',
	'tag.applied': 'A tag was applied to a contact or a conversation.',
	'tag.removed': 'A tag was removed from a contact or a conversation.',
	'member.created': 'An operator joined the team.',
	'member.updated': 'An operator’s name, permissions, groups or state changed.',
	'member.deleted': 'An operator left the team.',
	'member.status_changed': 'An operator went online, away or offline.',
	'group.created': 'A team group was created.',
	'group.updated': 'A team group changed.',
	'group.deleted': 'A team group was deleted.',
	'funnel.created': 'A sales funnel was created.',
	'funnel.updated': 'A funnel or its stages changed.',
	'funnel.deleted': 'A funnel was deleted.',
	'deal.created': 'A deal was created.',
	'deal.updated': 'A deal’s fields changed.',
	'deal.stage_changed': 'A deal moved from one stage to another.',
	'deal.deleted': 'A deal was deleted.',
	'note.created': 'A note was added to a contact or a deal.',
	'task.created': 'A task was created.',
	'task.updated': 'A task changed (done, reassigned, rescheduled…).',
	'task.deleted': 'A task was deleted.',
	'canned_reply.created': 'A canned reply (a saved answer operators insert with `/shortcut`) was created.',
	'canned_reply.updated': 'A canned reply’s shortcut, title or text changed.',
	'canned_reply.deleted': 'A canned reply was deleted.',
	'custom_field.created': 'A custom field was defined for contacts or deals.',
	'custom_field.updated': 'A custom field’s label, options or required flag changed.',
	'custom_field.deleted': 'A custom field was deleted, with its values.',
	'bot.created': 'A bot was created.',
	'bot.updated': 'A bot’s settings or draft changed.',
	'bot.published': 'A bot version was published (or an older one again).',
	'bot.deleted': 'A bot was deleted.',
	'bot.run_started': 'A bot started in a conversation.',
	'bot.run_ended': 'A bot run ended: finished, transferred to a person, stopped or failed.',
	'bot.notification': 'A bot notified operators (its `notify` step).',
	'scenario.created': 'A scenario was created.',
	'scenario.updated': 'A scenario’s settings or draft changed.',
	'scenario.published': 'A scenario version was published (or an older one again).',
	'scenario.deleted': 'A scenario was deleted.',
	'scenario.run_ended': 'A scenario run succeeded or failed.',
	'scenario.paused':
		'Flood protection paused a scenario that started runs faster than the workspace allows; an admin resumes it.',
	'conversation.waiting': 'A customer has waited a rule’s time for an operator’s reply.',
	'rule.created': 'An automation rule was created.',
	'rule.updated': 'An automation rule changed (enabled, trigger, condition, actions…).',
	'rule.deleted': 'An automation rule was deleted.',
	'rule.notification': 'A rule notified operators (its `notify` action).',
	'assignment_rule.created': 'An auto-assignment rule was created.',
	'assignment_rule.updated': 'An auto-assignment rule changed (enabled, priority, condition, policy…).',
	'assignment_rule.deleted': 'An auto-assignment rule was deleted.',
	'webhook_endpoint.disabled': 'Parley stopped delivering to an endpoint after five days of failures.',
	'mail.sent': 'A mail (a continuation, a reply in an e-mail conversation) was handed to the provider.',
	'mail.failed': 'A mail could not be sent: the provider refused it, or every try failed.',
};

type JsonSchema = {
	type?: string | string[];
	properties?: Record<string, JsonSchema>;
	items?: JsonSchema;
	enum?: unknown[];
	const?: unknown;
	anyOf?: JsonSchema[];
	oneOf?: JsonSchema[];
	additionalProperties?: JsonSchema | boolean;
	default?: unknown;
};

const ID_TAIL = '01JD3Q8Z6Y2V7K1N4M5P6R7S8T';
const PREFIXES: Record<string, string> = {
	conversation: 'conv',
	contact: 'ctc',
	message: 'msg',
	operator: 'op',
	assignee: 'op',
	author: 'op',
	owner: 'op',
	group: 'grp',
	funnel: 'fnl',
	stage: 'stg',
	deal: 'deal',
	tag: 'tag',
	task: 'task',
	note: 'note',
	bot: 'bot',
	scenario: 'scn',
	run: 'run',
	endpoint: 'whe',
	delivery: 'mail',
	workspace: 'ws',
};

/** A plausible string for a field, by its name: ids with their prefix, times, e-mails, names. */
function sampleString(key: string, parent: string): string {
	if (key === 'id') return `${PREFIXES[parent] ?? parent.slice(0, 4)}_${ID_TAIL}`;
	if (key.endsWith('Id')) return `${PREFIXES[key.slice(0, -2)] ?? key.slice(0, 4).toLowerCase()}_${ID_TAIL}`;
	if (key.endsWith('At') || key === 'failingSince') return '2026-11-23T12:00:00.000Z';
	if (key === 'email') return 'ada@example.com';
	if (key === 'phone') return '+5511999998888';
	if (key === 'url') return 'https://hooks.acme.example/parley';
	if (key === 'name')
		return parent === 'contact' ? 'Ada Lovelace' : `${parent[0]?.toUpperCase()}${parent.slice(1)} one`;
	if (key === 'text') return 'Hello! How can we help?';
	return key;
}

/** An example value of a JSON Schema, filled in by field names. */
function sample(schema: JsonSchema, key: string, parent: string): unknown {
	if (schema.const !== undefined) return schema.const;
	if (schema.enum) return schema.enum[0];
	const options = schema.anyOf ?? schema.oneOf;
	if (options) {
		const real = options.find((o) => o.type !== 'null') ?? options[0];
		return real ? sample(real, key, parent) : null;
	}
	const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
	switch (type) {
		case 'object': {
			if (!schema.properties) return {};
			return Object.fromEntries(
				Object.entries(schema.properties).map(([name, property]) => [name, sample(property, name, key || parent)]),
			);
		}
		case 'array':
			return schema.items ? [sample(schema.items, key.replace(/s$/, ''), parent)] : [];
		case 'string':
			return sampleString(key, parent);
		case 'integer':
		case 'number':
			return 1;
		case 'boolean':
			return true;
		case 'null':
			return null;
		default:
			return null;
	}
}

/** The payload JSON Schema of a type, as receivers read it. */
function payloadSchema(type: EventType): JsonSchema {
	return z.toJSONSchema(EVENT_PAYLOADS[type], { io: 'output', unrepresentable: 'any' }) as JsonSchema;
}

/** An example event of the type, from its schema: what `examplesParse` checks and the document shows. */
export function exampleEvent(type: EventType): DomainEvent {
	return {
		id: `evt_${ID_TAIL}`,
		type,
		workspaceId: `ws_${ID_TAIL}`,
		occurredAt: '2026-11-23T12:00:00.000Z',
		actor: { kind: 'operator', id: `op_${ID_TAIL}` },
		payload: sample(payloadSchema(type), '', type.split('.')[0] ?? '') as never,
	} as DomainEvent;
}

/** The document. */
export function catalogueMarkdown(body: (event: DomainEvent) => string): string {
	const lines = [
		'# Webhook events',
		'',
		'Generated from `src/model/events.ts` by `src/events/catalogue-doc.ts` (a test checks it is current: run',
		'`npx vitest run --project workers test/webhook-events-doc.test.ts -u` after changing an event).',
		'',
		'Every delivery is a POST with a JSON body `{type, timestamp, data}`: `data` holds the event id (also sent as',
		'`webhook-id`, the same on every try: dedupe on it), the workspace, the actor (who caused it: an operator, the',
		'contact, a bot, a scenario, a rule or the system) and the fields below. It is signed per',
		'[Standard Webhooks](https://www.standardwebhooks.com) (`webhook-id`, `webhook-timestamp`, `webhook-signature`);',
		'see docs/automation.md for verifying it. Fields may be added to a type; none is removed or changes meaning.',
		'',
		'| Type | When |',
		'| --- | --- |',
		...DOMAIN_EVENT_TYPES.map((type) => `| [\`${type}\`](#${type.replace(/[^a-z0-9_-]/g, '')}) | ${SUMMARIES[type]} |`),
		'',
	];
	for (const type of DOMAIN_EVENT_TYPES) {
		lines.push(
			`## ${type}`,
			'',
			SUMMARIES[type],
			'',
			'```json',
			JSON.stringify(JSON.parse(body(exampleEvent(type))), null, 2),
			'```',
			'',
			'<details><summary>Payload schema</summary>',
			'',
			'```json',
			JSON.stringify(payloadSchema(type), null, 2),
			'```',
			'',
			'</details>',
			'',
		);
	}
	return lines.join('\n');
}
