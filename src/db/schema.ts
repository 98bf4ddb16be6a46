/**
 * The D1 data model. Every table carries `workspace_id` and every query filters on it. Times are integer
 * milliseconds since the epoch (cheap to index and compare); the API renders them as ISO-8601 UTC.
 * JSON columns hold shapes validated by zod at the edge of the system.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Interactive } from '../domain/messages';

export const CONVERSATION_STATUSES = ['open', 'pending', 'closed'] as const;

export const workspaces = sqliteTable('workspaces', {
	id: text('id').primaryKey(),
	slug: text('slug').notNull().unique(),
	name: text('name').notNull(),
	/**
	 * The version of the workspace's identity-verification secret: null (never on) or negative (turned off)
	 * when verification is off. The secret is derived from the deployment secret and this version
	 * (src/auth/secrets.ts), never stored.
	 */
	identitySecretVersion: integer('identity_secret_version'),
	createdAt: integer('created_at').notNull(),
});

export const operators = sqliteTable(
	'operators',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id')
			.notNull()
			.references(() => workspaces.id),
		email: text('email').notNull(),
		name: text('name').notNull(),
		permissions: text('permissions', { mode: 'json' }).$type<string[]>().notNull(),
		groups: text('groups', { mode: 'json' }).$type<string[]>().notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [uniqueIndex('operators_workspace_email').on(t.workspaceId, t.email)],
);

export const apiTokens = sqliteTable(
	'api_tokens',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		operatorId: text('operator_id')
			.notNull()
			.references(() => operators.id),
		tokenHash: text('token_hash').notNull().unique(),
		hint: text('hint').notNull(),
		createdAt: integer('created_at').notNull(),
		revokedAt: integer('revoked_at'),
		/** The token that replaced this one on regenerate: makes a regenerate race-free (see routes/tokens.ts). */
		replacedBy: text('replaced_by'),
	},
	// One active token per operator: regenerating revokes the previous one.
	(t) => [uniqueIndex('api_tokens_one_active').on(t.operatorId).where(sql`revoked_at IS NULL`)],
);

export const contacts = sqliteTable(
	'contacts',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name'),
		email: text('email'),
		phone: text('phone'),
		customFields: text('custom_fields', { mode: 'json' })
			.$type<Record<string, string | number | boolean | null>>()
			.notNull(),
		firstOrigin: text('first_origin', { mode: 'json' }).$type<Record<string, string>>(),
		lastOrigin: text('last_origin', { mode: 'json' }).$type<Record<string, string>>(),
		/** The site's own user id, set only from a verified identity. */
		externalId: text('external_id'),
		/** When a signed identity proved who this contact is; null for anonymous and self-declared contacts. */
		verifiedAt: integer('verified_at'),
		/**
		 * An e-mail or phone a visitor typed without proof while another contact already holds it: kept for the
		 * operator to see, never used to find or merge contacts.
		 */
		claimedEmail: text('claimed_email'),
		claimedPhone: text('claimed_phone'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		uniqueIndex('contacts_workspace_email').on(t.workspaceId, t.email),
		uniqueIndex('contacts_workspace_phone').on(t.workspaceId, t.phone),
		uniqueIndex('contacts_workspace_external_id').on(t.workspaceId, t.externalId),
	],
);

/** A widget visitor: the browser that holds a signed session token for this id. */
export const visitorSessions = sqliteTable(
	'visitor_sessions',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		/**
		 * The contact this browser speaks as: none until it starts a conversation or identifies (a page view
		 * creates no contact), then its own contact, or a verified one after a signed identify.
		 */
		contactId: text('contact_id').references(() => contacts.id),
		/** The campaign origin captured when the session started (last touch of this visit). */
		origin: text('origin', { mode: 'json' }).$type<Record<string, string>>(),
		createdAt: integer('created_at').notNull(),
		lastSeenAt: integer('last_seen_at').notNull(),
		/** Set by `reset` (the site's logout): the token stops working. */
		endedAt: integer('ended_at'),
	},
	(t) => [index('visitor_sessions_contact').on(t.workspaceId, t.contactId)],
);

export const tags = sqliteTable(
	'tags',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [uniqueIndex('tags_workspace_name').on(t.workspaceId, t.name)],
);

export const contactTags = sqliteTable(
	'contact_tags',
	{
		workspaceId: text('workspace_id').notNull(),
		contactId: text('contact_id')
			.notNull()
			.references(() => contacts.id),
		tagId: text('tag_id')
			.notNull()
			.references(() => tags.id),
	},
	(t) => [primaryKey({ columns: [t.contactId, t.tagId] })],
);

export const conversations = sqliteTable(
	'conversations',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		contactId: text('contact_id')
			.notNull()
			.references(() => contacts.id),
		channel: text('channel').notNull(),
		status: text('status', { enum: CONVERSATION_STATUSES }).notNull(),
		assigneeId: text('assignee_id'),
		groupId: text('group_id'),
		utmSource: text('utm_source'),
		utmMedium: text('utm_medium'),
		utmCampaign: text('utm_campaign'),
		utmContent: text('utm_content'),
		utmTerm: text('utm_term'),
		gclid: text('gclid'),
		fbclid: text('fbclid'),
		landingUrl: text('landing_url'),
		referrer: text('referrer'),
		lastMessageSeq: integer('last_message_seq').notNull().default(0),
		unreadByOperators: integer('unread_by_operators').notNull().default(0),
		unreadByContact: integer('unread_by_contact').notNull().default(0),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
		/**
		 * When the status last changed (or the conversation was created): what a visitor's message reopening
		 * a closed conversation is ordered against. Not `updated_at`, which any tag or assignment moves.
		 */
		statusChangedAt: integer('status_changed_at').notNull(),
		lastMessageAt: integer('last_message_at'),
		/** The list order: the later of the last message and the last change. */
		lastActivityAt: integer('last_activity_at').notNull(),
		/**
		 * What made a retried start find this conversation instead of opening another: the widget's first
		 * client message id or an API Idempotency-Key, namespaced by visitor or operator. Unique in the
		 * workspace, so moving conversations between contacts can never collide.
		 */
		startKey: text('start_key'),
	},
	(t) => [
		uniqueIndex('conversations_start_key').on(t.workspaceId, t.startKey),
		index('conversations_activity').on(t.workspaceId, t.lastActivityAt, t.id),
		index('conversations_status_activity').on(t.workspaceId, t.status, t.lastActivityAt, t.id),
		index('conversations_assignee_activity').on(t.workspaceId, t.assigneeId, t.lastActivityAt, t.id),
		index('conversations_contact').on(t.workspaceId, t.contactId),
	],
);

export const conversationTags = sqliteTable(
	'conversation_tags',
	{
		workspaceId: text('workspace_id').notNull(),
		conversationId: text('conversation_id')
			.notNull()
			.references(() => conversations.id),
		tagId: text('tag_id')
			.notNull()
			.references(() => tags.id),
	},
	(t) => [
		primaryKey({ columns: [t.conversationId, t.tagId] }),
		index('conversation_tags_tag').on(t.tagId, t.conversationId),
	],
);

export interface AttachmentMeta {
	url: string;
	name: string;
	contentType: string;
	size: number;
}

export const messages = sqliteTable(
	'messages',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		conversationId: text('conversation_id')
			.notNull()
			.references(() => conversations.id),
		seq: integer('seq').notNull(),
		authorKind: text('author_kind', { enum: ['contact', 'operator', 'bot', 'system'] }).notNull(),
		authorId: text('author_id'),
		body: text('body').notNull(),
		attachments: text('attachments', { mode: 'json' }).$type<AttachmentMeta[]>().notNull(),
		/** Buttons, a data-entry prompt or a rating the visitor is asked to answer; null for a plain message. */
		interactive: text('interactive', { mode: 'json' }).$type<Interactive>(),
		/** A client's own id for the message (or an API Idempotency-Key): a retry never duplicates. */
		clientMessageId: text('client_message_id'),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [
		uniqueIndex('messages_conversation_seq').on(t.conversationId, t.seq),
		uniqueIndex('messages_conversation_client_id').on(t.conversationId, t.clientMessageId),
	],
);

export const HANDOFF_CHANNELS = ['whatsapp'] as const;

/**
 * A visitor who left the widget for an external messaging app, by the reference the widget put in the
 * pre-filled text: when a message with "ref XXXXXXXX" arrives in the app, this says which campaign it came
 * from. The widget makes up the reference, so it is unique per workspace only.
 */
export const messagingHandoffs = sqliteTable(
	'messaging_handoffs',
	{
		workspaceId: text('workspace_id').notNull(),
		ref: text('ref').notNull(),
		channel: text('channel', { enum: HANDOFF_CHANNELS }).notNull(),
		/** The campaign origin at the click (`{}` when none was captured). */
		origin: text('origin', { mode: 'json' }).$type<Record<string, string>>().notNull(),
		/** The widget visitor who clicked, when the widget had a session. */
		sessionId: text('session_id'),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [primaryKey({ columns: [t.workspaceId, t.ref] })],
);

export const widgetSettings = sqliteTable('widget_settings', {
	workspaceId: text('workspace_id').primaryKey(),
	/** The whole settings object, validated by `widgetSettingsSchema` before every write. */
	settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
	updatedAt: integer('updated_at').notNull(),
});

export const funnels = sqliteTable('funnels', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	name: text('name').notNull(),
	createdAt: integer('created_at').notNull(),
});

export const stages = sqliteTable('stages', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	funnelId: text('funnel_id')
		.notNull()
		.references(() => funnels.id),
	name: text('name').notNull(),
	position: integer('position').notNull(),
});

export const deals = sqliteTable(
	'deals',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		funnelId: text('funnel_id')
			.notNull()
			.references(() => funnels.id),
		stageId: text('stage_id')
			.notNull()
			.references(() => stages.id),
		contactId: text('contact_id').references(() => contacts.id),
		ownerId: text('owner_id'),
		name: text('name').notNull(),
		/** Minor units (cents) to keep money exact. */
		valueCents: integer('value_cents'),
		currency: text('currency'),
		status: text('status', { enum: ['open', 'won', 'lost'] }).notNull(),
		customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, string>>().notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [index('deals_workspace_stage').on(t.workspaceId, t.stageId)],
);

/** A scenario's inbound webhook: `POST /v3/workflows/webhook/{id}` starts a run of its scenario. */
export const inboundWebhooks = sqliteTable('inbound_webhooks', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	name: text('name').notNull(),
	scenarioId: text('scenario_id'),
	enabled: integer('enabled', { mode: 'boolean' }).notNull(),
	createdAt: integer('created_at').notNull(),
});

export const workflowRuns = sqliteTable(
	'workflow_runs',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		webhookId: text('webhook_id').notNull(),
		scenarioId: text('scenario_id'),
		status: text('status', { enum: ['queued', 'running', 'succeeded', 'failed'] }).notNull(),
		input: text('input', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		idempotencyKey: text('idempotency_key'),
		createdAt: integer('created_at').notNull(),
		/** When the queue consumer first received the run. */
		dequeuedAt: integer('dequeued_at'),
	},
	(t) => [uniqueIndex('workflow_runs_webhook_key').on(t.webhookId, t.idempotencyKey)],
);

/** Domain events as the events consumer recorded them (idempotent by event id). */
export const events = sqliteTable(
	'events',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		type: text('type').notNull(),
		occurredAt: integer('occurred_at').notNull(),
		payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		recordedAt: integer('recorded_at').notNull(),
	},
	(t) => [index('events_workspace_time').on(t.workspaceId, t.occurredAt)],
);

/**
 * Events written in the same D1 transaction as the change they describe, deleted once the events Queue has
 * them: a change can never commit without its event (the scheduled sweep re-sends what is left).
 */
export const eventOutbox = sqliteTable('event_outbox', {
	id: text('id').primaryKey(),
	workspaceId: text('workspace_id').notNull(),
	event: text('event', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
	createdAt: integer('created_at').notNull(),
});
