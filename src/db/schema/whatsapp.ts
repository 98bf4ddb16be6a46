/**
 * WhatsApp as a channel: a workspace's connected business numbers (their Meta credentials sealed, never
 * returned), every message a webhook brought (applied once per WhatsApp id), the 24-hour window per customer,
 * and every message handed to the Cloud API with where it stands.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { WHATSAPP_DELIVERY_KINDS, WHATSAPP_DELIVERY_STATUSES, WHATSAPP_INBOUND_STATUSES } from '../../model/whatsapp';

/** A WhatsApp Business phone number connected to a workspace: its webhook is `/whatsapp/{id}/webhook`. */
export const whatsappNumbers = sqliteTable(
	'whatsapp_numbers',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		/** Meta's phone number id: one workspace per number across the deployment (webhooks name it). */
		phoneNumberId: text('phone_number_id').notNull(),
		businessAccountId: text('business_account_id').notNull(),
		/** The number as people dial it (`+1 555 0100`), from Meta's webhook metadata or the admin. */
		displayPhoneNumber: text('display_phone_number'),
		/** The access token and the app secret, sealed (AES-GCM under a key derived from PARLEY_SECRET). */
		accessTokenSealed: text('access_token_sealed').notNull(),
		appSecretSealed: text('app_secret_sealed').notNull(),
		/** SHA-256 of the verify token Parley generated (shown once): Meta's verification request must carry it. */
		verifyTokenHash: text('verify_token_hash').notNull(),
		graphUrl: text('graph_url').notNull(),
		graphVersion: text('graph_version').notNull(),
		/** The sending Queue's pace for this number (Meta's 80 a second by default, inbound included). */
		messagesPerSecond: integer('messages_per_second').notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		uniqueIndex('whatsapp_numbers_phone_number_id').on(t.phoneNumberId),
		index('whatsapp_numbers_workspace').on(t.workspaceId, t.createdAt),
	],
);

/** Every message a webhook brought, by WhatsApp id: a redelivered webhook finds it here and changes nothing. */
export const whatsappInbound = sqliteTable(
	'whatsapp_inbound',
	{
		wamid: text('wamid').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		numberId: text('number_id').notNull(),
		/** The customer's WhatsApp id (`wa_id`, their phone number in digits). */
		fromWaId: text('from_wa_id').notNull(),
		/** Meta's message type (`text`, `image`, `interactive`, `unsupported`…). */
		type: text('type').notNull(),
		status: text('status', { enum: WHATSAPP_INBOUND_STATUSES }).notNull(),
		failure: text('failure'),
		conversationId: text('conversation_id'),
		messageId: text('message_id'),
		/** When Meta says the customer sent it (ms). */
		sentAt: integer('sent_at').notNull(),
		receivedAt: integer('received_at').notNull(),
	},
	// A conversation's latest inbound message (which number and id it is on): one probe, no sort.
	(t) => [index('whatsapp_inbound_conversation').on(t.workspaceId, t.conversationId, t.receivedAt)],
);

/** The customer-service window of one customer with one number: free-form messages until 24 h after `lastInboundAt`. */
export const whatsappWindows = sqliteTable(
	'whatsapp_windows',
	{
		numberId: text('number_id').notNull(),
		waId: text('wa_id').notNull(),
		workspaceId: text('workspace_id').notNull(),
		lastInboundAt: integer('last_inbound_at').notNull(),
	},
	(t) => [primaryKey({ columns: [t.numberId, t.waId] })],
);

/**
 * Every message handed (or to be handed) to the Cloud API, claimed before the send and recorded after it, so
 * a redelivered Queue message never sends again what is recorded as sent. Meta's status webhooks move it on
 * by `wamid`.
 */
export const whatsappDeliveries = sqliteTable(
	'whatsapp_deliveries',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		numberId: text('number_id').notNull(),
		kind: text('kind', { enum: WHATSAPP_DELIVERY_KINDS }).notNull(),
		/** One delivery per key in the workspace: `reply:<conversation>:<seq>`, `campaign:<campaign>:<contact>`. */
		dedupeKey: text('dedupe_key').notNull(),
		/** The customer's WhatsApp id. */
		recipient: text('recipient').notNull(),
		conversationId: text('conversation_id'),
		/** The message it carries (a reply's), by seq in its conversation. */
		messageSeq: integer('message_seq'),
		contactId: text('contact_id'),
		campaignId: text('campaign_id'),
		/** A template's name, language and filled variables, as sent. */
		template: text('template', { mode: 'json' }).$type<{
			name: string;
			language: string;
			variables: string[];
			/** A NAMED template's parameter names, in the order of `variables` (absent: positional). */
			parameterNames?: string[];
		}>(),
		status: text('status', { enum: WHATSAPP_DELIVERY_STATUSES }).notNull(),
		attempts: integer('attempts').notNull().default(0),
		/**
		 * How many of the message's Cloud API bodies went out (a text, then each file): a retry after a failure
		 * part-way goes on from the next one, never sending one twice.
		 */
		partsSent: integer('parts_sent').notNull().default(0),
		/** The WhatsApp id the Cloud API answered with: what status webhooks name. */
		wamid: text('wamid'),
		/** Meta's error code (131047, 130429…) and its title, when it failed or was retried. */
		errorCode: integer('error_code'),
		error: text('error'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
		sentAt: integer('sent_at'),
		deliveredAt: integer('delivered_at'),
		readAt: integer('read_at'),
	},
	(t) => [
		uniqueIndex('whatsapp_deliveries_dedupe').on(t.workspaceId, t.dedupeKey),
		uniqueIndex('whatsapp_deliveries_wamid').on(t.wamid),
		index('whatsapp_deliveries_conversation').on(t.workspaceId, t.conversationId, t.messageSeq),
		index('whatsapp_deliveries_status').on(t.workspaceId, t.status, t.createdAt),
		// The minute's sweep looks across workspaces for deliveries stuck in a state (as mail_deliveries_status).
		index('whatsapp_deliveries_sweep').on(t.status, t.updatedAt),
		index('whatsapp_deliveries_campaign').on(t.workspaceId, t.campaignId, t.contactId),
	],
);
