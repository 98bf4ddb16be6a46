/** Conversations (the summary row a room keeps up to date), their tags and their messages. */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { AD_CLICKS, CONVERSATION_STATUSES } from '../../model/conversations';
import { type AttachmentMeta, AUTHOR_KINDS, type Interactive } from '../../model/messages';
import type { WhatsappReferral } from '../../model/whatsapp';
import { contacts, tags } from './contacts';

export const conversations = sqliteTable(
	'conversations',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		contactId: text('contact_id')
			.notNull()
			.references(() => contacts.id),
		channel: text('channel').notNull(),
		/** What it is about, when its channel has subjects: an e-mail conversation's first mail's subject. */
		subject: text('subject'),
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
		/** A Click-to-WhatsApp ad's click id (Meta's `ctwa_clid`): the messaging app's gclid. */
		ctwaClid: text('ctwa_clid'),
		/** The Click-to-WhatsApp ad the conversation came from (source, headline…); null for any other start. */
		adReferral: text('ad_referral', { mode: 'json' }).$type<WhatsappReferral>(),
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
		/**
		 * When the customer started waiting for an operator: its first message after the last operator reply (a
		 * bot's does not count); null while an operator has the last word. The room keeps it with the summary.
		 */
		waitingSince: integer('waiting_since'),
		/**
		 * Until when an operator snoozed it (status `pending` meanwhile); null when not snoozed. Its room's
		 * `snooze` timer reopens it then; any other status change clears it.
		 */
		snoozedUntil: integer('snoozed_until'),
		/** An operator's first message (a bot's or a campaign's does not count): the first-response time's end. */
		firstResponseAt: integer('first_response_at'),
		/**
		 * Which ad click brought the visitor (`search`, `social` or `none`), from the click ids: what reports group
		 * by. A Click-to-WhatsApp ad is Meta's, so `social`, as a Facebook or Instagram ad's `fbclid` is.
		 */
		adClick: text('ad_click', { enum: AD_CLICKS }).generatedAlwaysAs(
			sql`CASE WHEN gclid IS NOT NULL AND gclid != '' THEN 'search' WHEN (fbclid IS NOT NULL AND fbclid != '') OR (ctwa_clid IS NOT NULL AND ctwa_clid != '') THEN 'social' ELSE 'none' END`,
			{ mode: 'virtual' },
		),
	},
	(t) => [
		uniqueIndex('conversations_start_key').on(t.workspaceId, t.startKey),
		index('conversations_activity').on(t.workspaceId, t.lastActivityAt, t.id),
		index('conversations_status_activity').on(t.workspaceId, t.status, t.lastActivityAt, t.id),
		index('conversations_assignee_activity').on(t.workspaceId, t.assigneeId, t.lastActivityAt, t.id),
		index('conversations_group_activity').on(t.workspaceId, t.groupId, t.lastActivityAt, t.id),
		index('conversations_contact').on(t.workspaceId, t.contactId),
		index('conversations_waiting').on(t.workspaceId, t.waitingSince),
		// The status views sorted by waiting time, longest first: one walk from the oldest wait.
		index('conversations_status_waiting').on(t.workspaceId, t.status, t.waitingSince, t.id),
		// The console's unread counts (src/domain/alerts/unread.ts) read only the conversations with something unread.
		index('conversations_unread').on(t.workspaceId, t.assigneeId).where(sql`${t.unreadByOperators} > 0`),
		// The reports read their rollups (migrations/0038_report_rollups.sql), kept by triggers, not this table.
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

export const messages = sqliteTable(
	'messages',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		conversationId: text('conversation_id')
			.notNull()
			.references(() => conversations.id),
		seq: integer('seq').notNull(),
		authorKind: text('author_kind', { enum: AUTHOR_KINDS }).notNull(),
		authorId: text('author_id'),
		body: text('body').notNull(),
		attachments: text('attachments', { mode: 'json' }).$type<AttachmentMeta[]>().notNull(),
		/** Buttons, a data-entry prompt or a rating the visitor is asked to answer; null for a plain message. */
		interactive: text('interactive', { mode: 'json' }).$type<Interactive>(),
		/** A client's own id for the message (or an API Idempotency-Key): a retry never duplicates. */
		clientMessageId: text('client_message_id'),
		/**
		 * A private note: the team's message to itself in the conversation, which the visitor never sees (its
		 * socket, its history, its unread count) and which is no reply (first response, waiting, bots).
		 */
		private: integer('private', { mode: 'boolean' }).notNull().default(false),
		createdAt: integer('created_at').notNull(),
	},
	(t) => [
		uniqueIndex('messages_conversation_seq').on(t.conversationId, t.seq),
		uniqueIndex('messages_conversation_client_id').on(t.conversationId, t.clientMessageId),
	],
);
