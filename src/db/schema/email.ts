/**
 * E-mail as a channel: a workspace's sender and inbound addresses, every mail received (its raw message kept
 * in R2) and every mail handed to the provider, and the Message-IDs that thread mail into conversations.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import {
	INBOUND_MAIL_KINDS,
	INBOUND_MAIL_STATUSES,
	MAIL_DELIVERY_KINDS,
	MAIL_DELIVERY_STATUSES,
	type MailAuthentication,
} from '../../model/email';

/** One row per workspace that set anything; a workspace without one has the defaults and no sender. */
export const emailSettings = sqliteTable('email_settings', {
	workspaceId: text('workspace_id').primaryKey(),
	/** The From name; null: the workspace's name. */
	senderName: text('sender_name'),
	/** The From address, on a domain onboarded to Email Sending; null: no mail is sent, and the console says why. */
	senderAddress: text('sender_address'),
	/**
	 * The domain of reply addresses (`reply+…@<domain>`), routed by Email Routing to this Worker; null: the
	 * sender address's domain.
	 */
	replyDomain: text('reply_domain'),
	/** Whether a widget conversation's unseen team messages are mailed to the contact. */
	continuationEnabled: integer('continuation_enabled', { mode: 'boolean' }).notNull().default(true),
	/** How long a team message stays unseen before it is mailed (seconds). */
	continuationDelaySeconds: integer('continuation_delay_seconds').notNull().default(120),
	/**
	 * The origin (`https://host`) links in mail point at (the stop link, files): the Worker's own origin as the
	 * admin's last save reached it, since the mail Queue's consumer has no request to take one from.
	 */
	linkOrigin: text('link_origin'),
	/** Why the provider last refused the sender (its domain not onboarded, say); cleared by a new sender or a sent mail. */
	senderError: text('sender_error'),
	updatedAt: integer('updated_at').notNull(),
});

/** The addresses a workspace receives mail on (e.g. support@its-domain): a mail to one starts a conversation. */
export const emailAddresses = sqliteTable(
	'email_addresses',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		/** Lower-case; one workspace per address across the deployment (it is how a mail finds its workspace). */
		address: text('address').notNull(),
		/**
		 * The API's origin (`https://host`) when the address was added: the `email()` handler has no request of
		 * its own, and the attachments of the mail it receives are linked as `<origin>/v3/files/<id>`.
		 */
		origin: text('origin'),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [uniqueIndex('email_addresses_address').on(t.address), index('email_addresses_workspace').on(t.workspaceId)],
);

/**
 * Every Message-ID a conversation's mail carried, received or sent: a reply's `In-Reply-To` and `References`
 * find its conversation here (after the reply address's token, and never by subject).
 */
export const mailThreads = sqliteTable(
	'mail_threads',
	{
		workspaceId: text('workspace_id').notNull(),
		/** As written between the angle brackets, e.g. `abc@mail.example.com`. */
		messageId: text('message_id').notNull(),
		conversationId: text('conversation_id').notNull(),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [
		primaryKey({ columns: [t.workspaceId, t.messageId] }),
		index('mail_threads_conversation').on(t.conversationId),
	],
);

/**
 * Every mail the `email()` handler received, whatever became of it: the raw message is in R2 (`rawKey`)
 * before anything else happens, so a mail that fails to parse or post is never lost, and its failure is here.
 */
export const inboundMails = sqliteTable(
	'inbound_mails',
	{
		id: text('id').primaryKey(),
		/** Null when no workspace has the address it was sent to. */
		workspaceId: text('workspace_id'),
		conversationId: text('conversation_id'),
		/** The Parley message it became, if it became one. */
		parleyMessageId: text('parley_message_id'),
		rawKey: text('raw_key').notNull(),
		rawSize: integer('raw_size').notNull(),
		envelopeFrom: text('envelope_from').notNull(),
		envelopeTo: text('envelope_to').notNull(),
		/** Its own `Message-ID` header, without brackets. */
		headerMessageId: text('header_message_id'),
		subject: text('subject'),
		kind: text('kind', { enum: INBOUND_MAIL_KINDS }).notNull(),
		/** The SPF, DKIM and DMARC verdicts of `Authentication-Results`. */
		authentication: text('authentication', { mode: 'json' }).$type<MailAuthentication>(),
		/** A verdict failed: the console marks the message as possibly forged. */
		possiblyForged: integer('possibly_forged', { mode: 'boolean' }).notNull().default(false),
		status: text('status', { enum: INBOUND_MAIL_STATUSES }).notNull(),
		/** Why it was rejected or failed, for an admin. */
		failure: text('failure'),
		receivedAt: integer('received_at').notNull(),
	},
	(t) => [
		index('inbound_mails_workspace').on(t.workspaceId, t.receivedAt),
		index('inbound_mails_conversation').on(t.conversationId),
	],
);

/**
 * Every mail Parley hands to the provider. A delivery is claimed (queued -> sending) before the send and
 * recorded (sent, with the provider's id) after it, so a redelivered Queue message never mails again what is
 * recorded as sent.
 */
export const mailDeliveries = sqliteTable(
	'mail_deliveries',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		conversationId: text('conversation_id'),
		kind: text('kind', { enum: MAIL_DELIVERY_KINDS }).notNull(),
		/** What makes it unique (e.g. `continuation:<conversation>:<last seq>`): enqueuing it twice makes one. */
		dedupeKey: text('dedupe_key').notNull(),
		recipient: text('recipient').notNull(),
		/** The conversation's messages it carries, by seq (continuations and replies). */
		firstSeq: integer('first_seq'),
		lastSeq: integer('last_seq'),
		campaignId: text('campaign_id'),
		contactId: text('contact_id'),
		operatorId: text('operator_id'),
		status: text('status', { enum: MAIL_DELIVERY_STATUSES }).notNull(),
		attempts: integer('attempts').notNull().default(0),
		/** The `Message-ID` it was sent with (without brackets), set when it is built. */
		headerMessageId: text('header_message_id'),
		/** The provider's id for the sent mail. */
		providerMessageId: text('provider_message_id'),
		/** The provider's reason, when it failed. */
		error: text('error'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
		sentAt: integer('sent_at'),
	},
	(t) => [
		uniqueIndex('mail_deliveries_dedupe').on(t.workspaceId, t.dedupeKey),
		index('mail_deliveries_conversation').on(t.conversationId, t.createdAt),
		index('mail_deliveries_workspace').on(t.workspaceId, t.createdAt),
		// The sweep's read: deliveries still queued (a lost Queue send) or sending (an interrupted consumer).
		index('mail_deliveries_status').on(t.status, t.updatedAt),
	],
);
