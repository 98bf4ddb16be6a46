/**
 * What each domain event carries: its payload schema, per type (src/model/events.ts wraps them in the envelope
 * every consumer parses). Summaries here are the slices of a record an event names, never the whole record.
 */
import { z } from '@hono/zod-openapi';
import { BOT_RUN_TRIGGERS } from './bot-runs';
import { CONVERSATION_STATUSES } from './conversations';
import { MAIL_DELIVERY_KINDS } from './email';
import { AUTHOR_KINDS, interactiveSchema } from './messages';
import { PRESENCE_REASONS, PRESENCE_STATUSES } from './presence';

const conversationSummary = z.object({
	id: z.string(),
	contactId: z.string(),
	channel: z.string(),
	status: z.enum(CONVERSATION_STATUSES),
	assigneeId: z.string().nullable(),
	groupId: z.string().nullable(),
});

/** A field's value before and after a change: "status changed from open to closed". */
const change = <T extends z.ZodType>(value: T) => z.object({ from: value, to: value });

const messageSummary = z.object({
	id: z.string(),
	conversationId: z.string(),
	seq: z.number().int(),
	authorKind: z.enum(AUTHOR_KINDS),
	authorId: z.string().nullable(),
	text: z.string(),
	attachmentCount: z.number().int(),
	/**
	 * What the message asks the visitor (buttons, data entry, rating); null for a plain message. Defaulted:
	 * events queued before the field existed still parse.
	 */
	interactive: interactiveSchema.nullable().default(null),
	/**
	 * A private note: the team's, never shown to the visitor, and no reply to it. Defaulted: events queued
	 * before the field existed were all ordinary messages.
	 */
	private: z.boolean().default(false),
	createdAt: z.string(),
});

const contactSummary = z.object({
	id: z.string(),
	name: z.string().nullable(),
	email: z.string().nullable(),
	phone: z.string().nullable(),
	verified: z.boolean(),
});

const customFieldSummary = z.object({ id: z.string(), entity: z.enum(['contact', 'deal']), key: z.string() });

const memberSummary = z.object({ id: z.string(), name: z.string(), email: z.string() });

const groupSummary = z.object({ id: z.string(), name: z.string() });

const funnelSummary = z.object({ id: z.string(), name: z.string() });

const botSummary = z.object({ id: z.string(), name: z.string() });

const scenarioSummary = z.object({ id: z.string(), name: z.string() });

/** An automation or an assignment rule, as its events name it. */
const ruleSummary = z.object({ id: z.string(), name: z.string() });

/** A rule's settings changed: each field from and to. */
const ruleUpdated = z.object({
	rule: ruleSummary,
	changed: z.array(z.string()),
	changes: z.record(z.string(), change(z.unknown())),
});

const dealSummary = z.object({
	id: z.string(),
	name: z.string(),
	funnelId: z.string(),
	stageId: z.string(),
	status: z.enum(['open', 'won', 'lost']),
	value: z.number().int().nullable(),
	currency: z.string().nullable(),
	contactId: z.string().nullable(),
	ownerId: z.string().nullable(),
});

const stageRef = z.object({ id: z.string(), name: z.string() });

const noteSummary = z.object({
	id: z.string(),
	subject: z.object({ kind: z.enum(['contact', 'deal']), id: z.string() }),
	text: z.string(),
});

const taskSummary = z.object({
	id: z.string(),
	title: z.string(),
	assigneeId: z.string(),
	dueAt: z.string().nullable(),
	done: z.boolean(),
	contactId: z.string().nullable(),
	conversationId: z.string().nullable(),
	dealId: z.string().nullable(),
});

const tagSummary = z.object({ id: z.string(), name: z.string() });

/** A canned reply as its events name it (its text, a template, is read with `GET /v3/canned-replies/{id}`). */
const cannedReplySummary = z.object({
	id: z.string(),
	shortcut: z.string(),
	title: z.string().nullable(),
	authorId: z.string(),
});

/** What a tag is applied to: tags are names shared by a workspace's contacts and conversations. */
const tagTarget = z.object({ kind: z.enum(['contact', 'conversation']), id: z.string() });

/** A mail Parley handed to the provider (or could not), as its events name it; its messages by `seq`. */
const mailDeliverySummary = z.object({
	id: z.string(),
	kind: z.enum(MAIL_DELIVERY_KINDS),
	conversationId: z.string().nullable(),
	contactId: z.string().nullable(),
	/** The first and last `seq` of the conversation's messages it carries; null for a mail that carries none. */
	firstSeq: z.number().int().nullable(),
	lastSeq: z.number().int().nullable(),
	attempts: z.number().int(),
});

/** Payload schema per event type. */
export const EVENT_PAYLOADS = {
	'conversation.created': z.object({ conversation: conversationSummary }),
	'conversation.updated': z.object({
		conversation: conversationSummary,
		/** The keys of `changes`, for consumers that only need to know which fields moved. */
		changed: z.array(z.enum(['status', 'assigneeId', 'groupId', 'tags', 'contactId'])),
		/** Each changed field's value before and after. */
		changes: z
			.object({
				status: change(z.enum(CONVERSATION_STATUSES)),
				assigneeId: change(z.string().nullable()),
				groupId: change(z.string().nullable()),
				tags: change(z.array(z.string())),
				contactId: change(z.string()),
			})
			.partial()
			// Events queued before the field existed still parse.
			.default({}),
	}),
	/** A visitor or an operator read the conversation up to `seq` (a read receipt). */
	'conversation.read': z.object({
		conversationId: z.string(),
		reader: z.enum(['contact', 'operator']),
		operatorId: z.string().nullable(),
		seq: z.number().int(),
	}),
	/**
	 * `channel`: the conversation's (`widget`, `email`, `api`, …), so a consumer that acts on one channel reads
	 * nothing to know it; null in events from before the field and from a room that has not read it yet.
	 */
	'message.created': z.object({ message: messageSummary, channel: z.string().nullable().default(null) }),
	'contact.created': z.object({ contact: contactSummary }),
	'contact.updated': z.object({
		contact: contactSummary,
		changed: z.array(z.string()),
		/** Each changed field's value before and after (custom values as `customFields.<key>`). */
		changes: z.record(z.string(), change(z.unknown())).default({}),
	}),
	/** The contact as it was when it was deleted. */
	'contact.deleted': z.object({ contact: contactSummary }),
	/**
	 * `duplicate` (as it was) was merged into `contact` (as it now is) and deleted: its conversations, tags,
	 * deals, widget sessions and the values `contact` lacked moved over. `changes` lists the fields of
	 * `contact` the merge filled (one `conversation.updated` per moved conversation is not sent).
	 */
	'contact.merged': z.object({
		contact: contactSummary,
		duplicate: contactSummary,
		changed: z.array(z.string()),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	'tag.created': z.object({ tag: tagSummary }),
	/** A rename: contacts and conversations keep the tag under its new name. */
	'tag.updated': z.object({
		tag: tagSummary,
		changed: z.array(z.literal('name')),
		changes: z.object({ name: change(z.string()) }),
	}),
	/** The tag is gone from the workspace and from everything that carried it (no `tag.removed` for each). */
	'tag.deleted': z.object({ tag: tagSummary }),
	/** A tag now on a contact or a conversation that did not carry it. */
	'tag.applied': z.object({ tag: tagSummary, target: tagTarget }),
	/** A tag taken off a contact or a conversation that carried it. */
	'tag.removed': z.object({ tag: tagSummary, target: tagTarget }),
	'member.created': z.object({ member: memberSummary }),
	/** A change to an operator: name, permissions, groups (ids), capacity, or `disabled`. */
	'member.updated': z.object({
		member: memberSummary,
		changed: z.array(z.enum(['name', 'permissions', 'groups', 'capacity', 'disabled'])),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	/**
	 * The operator as it was. Its conversations are unassigned (each with its `conversation.updated`), its deals
	 * lose their owner (`deal.updated`) and its tasks go to the operator who deleted it (`task.updated`).
	 */
	'member.deleted': z.object({ member: memberSummary }),
	/**
	 * An operator's presence moved: set by itself (`set`), back with its chosen status when its console
	 * connected (`connected`), offline after its last feed socket dropped and the grace period passed
	 * (`disconnected`), or offline because it was disabled or deleted (`removed`).
	 */
	'member.status_changed': z.object({
		memberId: z.string(),
		reason: z.enum(PRESENCE_REASONS),
		changed: z.array(z.literal('status')),
		changes: z.object({ status: change(z.enum(PRESENCE_STATUSES)) }),
	}),
	'group.created': z.object({ group: groupSummary }),
	'group.updated': z.object({
		group: groupSummary,
		changed: z.array(z.enum(['name', 'memberIds'])),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	/** The group as it was; its conversations lose it (each with its `conversation.updated`). */
	'group.deleted': z.object({ group: groupSummary }),
	'funnel.created': z.object({ funnel: funnelSummary }),
	/** Renamed, or its stages added, renamed, reordered or deleted (`stages`: their names in order). */
	'funnel.updated': z.object({
		funnel: funnelSummary,
		changed: z.array(z.enum(['name', 'stages'])),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	'funnel.deleted': z.object({ funnel: funnelSummary }),
	'deal.created': z.object({ deal: dealSummary }),
	/** A change of a deal's fields (a stage move is `deal.stage_changed`); custom values as `customFields.<key>`. */
	'deal.updated': z.object({
		deal: dealSummary,
		changed: z.array(z.string()),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	/** The deal moved from one stage to another (of the same funnel or another). */
	'deal.stage_changed': z.object({ deal: dealSummary, from: stageRef, to: stageRef }),
	'deal.deleted': z.object({ deal: dealSummary }),
	'note.created': z.object({ note: noteSummary }),
	'task.created': z.object({ task: taskSummary }),
	'task.updated': z.object({
		task: taskSummary,
		changed: z.array(z.string()),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	'task.deleted': z.object({ task: taskSummary }),
	'canned_reply.created': z.object({ cannedReply: cannedReplySummary }),
	/** Its shortcut, title or text changed (`changes.text` holds the template before and after). */
	'canned_reply.updated': z.object({
		cannedReply: cannedReplySummary,
		changed: z.array(z.enum(['shortcut', 'title', 'text'])),
		changes: z.record(z.string(), change(z.string().nullable())),
	}),
	'canned_reply.deleted': z.object({ cannedReply: cannedReplySummary }),
	'custom_field.created': z.object({ customField: customFieldSummary }),
	/** A definition's label, options or required flag changed (its key and type never do). */
	'custom_field.updated': z.object({
		customField: customFieldSummary,
		changed: z.array(z.enum(['label', 'options', 'required'])),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	/** The definition is gone, and its values from every contact or deal (no `contact.updated` for each). */
	'custom_field.deleted': z.object({ customField: customFieldSummary }),
	'bot.created': z.object({ bot: botSummary }),
	/** Its settings or its draft changed (`definition`: the draft, whose content is not repeated here). */
	'bot.updated': z.object({
		bot: botSummary,
		changed: z.array(z.string()),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	/** New runs start with `version` now: a new one frozen from the draft, or an older one again (`rollback`). */
	'bot.published': z.object({ bot: botSummary, version: z.number().int(), rollback: z.boolean() }),
	/** The bot and its versions are gone; runs under way finish with the version they started with. */
	'bot.deleted': z.object({ bot: botSummary }),
	/** A bot started in a conversation: by its trigger, or by an operator (`manual`). */
	'bot.run_started': z.object({
		bot: botSummary,
		runId: z.string(),
		conversationId: z.string(),
		version: z.number().int(),
		trigger: z.enum(BOT_RUN_TRIGGERS),
	}),
	/**
	 * A run ended: `finished` (End Bot, or the flow ran out), `transferred` (Transfer to Agent: the conversation
	 * waits, unassigned, for a person; assignment starts here), `stopped` (an operator took over) or `failed`
	 * (`reason` says why).
	 */
	'bot.run_ended': z.object({
		bot: botSummary,
		runId: z.string(),
		conversationId: z.string(),
		status: z.enum(['finished', 'transferred', 'stopped', 'failed']),
		reason: z.string().nullable(),
	}),
	/** A bot's `notify` step: for the operators named (everyone when empty), as `rule.notification` is for a rule. */
	'bot.notification': z.object({
		bot: botSummary,
		runId: z.string(),
		text: z.string(),
		operatorIds: z.array(z.string()),
		conversationId: z.string().nullable(),
		contactId: z.string().nullable(),
	}),
	'scenario.created': z.object({ scenario: scenarioSummary }),
	/** Its settings or its draft changed (`definition`: the draft, whose content is not repeated here). */
	'scenario.updated': z.object({
		scenario: scenarioSummary,
		changed: z.array(z.string()),
		changes: z.record(z.string(), change(z.unknown())),
	}),
	/** New runs start with `version` now: a new one frozen from the draft, or an older one again (`rollback`). */
	'scenario.published': z.object({ scenario: scenarioSummary, version: z.number().int(), rollback: z.boolean() }),
	/** The scenario, its versions and webhooks are gone; runs under way finish with their version. */
	'scenario.deleted': z.object({ scenario: scenarioSummary }),
	/** A run ended: `succeeded`, or `failed` with the reason (it can be retried from its failed step). */
	'scenario.run_ended': z.object({
		scenario: scenarioSummary,
		runId: z.string(),
		trigger: z.enum(['webhook', 'event', 'schedule', 'api']),
		status: z.enum(['succeeded', 'failed']),
		error: z.string().nullable(),
	}),
	/**
	 * Flood protection paused the scenario (and disabled it): it started more than `runsPerMinute` runs in a
	 * minute. Its webhooks answer 409 and nothing else starts it until an admin resumes it.
	 */
	'scenario.paused': z.object({
		scenario: scenarioSummary,
		runsPerMinute: z.number().int(),
		reason: z.string(),
	}),
	/**
	 * A customer has waited `minutes` for an operator's reply since `waitingSince` (its first message after the
	 * last operator reply). Sent once per waiting period and threshold, for the thresholds the workspace's
	 * `conversation_waiting` rules set, by a sweep that runs every minute.
	 */
	'conversation.waiting': z.object({
		conversation: conversationSummary,
		waitingSince: z.string(),
		minutes: z.number().int(),
	}),
	'rule.created': z.object({ rule: ruleSummary }),
	/** Its name, priority, trigger, condition, actions or `enabled` changed. */
	'rule.updated': ruleUpdated,
	'rule.deleted': z.object({ rule: ruleSummary }),
	'assignment_rule.created': z.object({ rule: ruleSummary }),
	/** Its name, priority, condition, policy or `enabled` changed. */
	'assignment_rule.updated': ruleUpdated,
	'assignment_rule.deleted': z.object({ rule: ruleSummary }),
	/** A rule's `notify` action: for the operators named (everyone when empty), on their live feed. */
	'rule.notification': z.object({
		rule: ruleSummary,
		text: z.string(),
		operatorIds: z.array(z.string()),
		conversationId: z.string().nullable(),
		contactId: z.string().nullable(),
	}),
	/** Parley stopped delivering to an outbound webhook endpoint: every try has failed for five days. */
	'webhook_endpoint.disabled': z.object({
		endpoint: z.object({ id: z.string(), url: z.string() }),
		failingSince: z.string(),
		reason: z.string(),
	}),
	/** The provider took a mail: `messageId` is the Message-ID it went out with (a reply's In-Reply-To names it). */
	'mail.sent': z.object({ delivery: mailDeliverySummary, messageId: z.string() }),
	/** A mail could not be sent: the provider refused it, or every try failed; `reason` is the provider's. */
	'mail.failed': z.object({ delivery: mailDeliverySummary, reason: z.string() }),
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;

/** Every event type, as an enum's values. */
export const DOMAIN_EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as [EventType, ...EventType[]];
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;
