/** Bulk messaging campaigns and the contacts each one goes to. */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, RECIPIENT_STATUSES } from '../../model/campaigns';

export const campaigns = sqliteTable(
	'campaigns',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name').notNull(),
		/** The message, a Liquid template rendered per contact. */
		template: text('template').notNull(),
		/** An e-mail campaign's subject, a Liquid template rendered per contact; null on the widget. */
		subject: text('subject'),
		/** A WhatsApp campaign's connected number (`whatsapp_numbers.id`); null on other channels. */
		whatsappNumberId: text('whatsapp_number_id'),
		/** A WhatsApp campaign's approved template: its name, language and variables as Liquid. */
		whatsappTemplate: text('whatsapp_template', { mode: 'json' }).$type<{
			name: string;
			language: string;
			variables: string[] | Record<string, string>;
		}>(),
		/** Who it goes to: a saved contact filter or a list of contact ids (`campaignAudienceSchema`). */
		audience: text('audience', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
		channel: text('channel', { enum: CAMPAIGN_CHANNELS }).notNull(),
		status: text('status', { enum: CAMPAIGN_STATUSES }).notNull(),
		/** When a scheduled campaign starts sending; null for a draft and for one sent at once. */
		sendAt: integer('send_at'),
		/** How many contacts the audience held when it was fixed (the start of sending); 0 before. */
		targeted: integer('targeted').notNull().default(0),
		createdBy: text('created_by'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
		startedAt: integer('started_at'),
		finishedAt: integer('finished_at'),
	},
	(t) => [
		index('campaigns_workspace_created').on(t.workspaceId, t.createdAt, t.id),
		// The minute's sweep: scheduled campaigns that are due.
		index('campaigns_due').on(t.status, t.sendAt),
	],
);

/**
 * One contact of a campaign: written when the audience is fixed, then claimed and sent by a batch of the
 * campaign-sends Queue. The key (campaign, contact) is what makes a redelivered batch message no one twice.
 */
export const campaignRecipients = sqliteTable(
	'campaign_recipients',
	{
		workspaceId: text('workspace_id').notNull(),
		campaignId: text('campaign_id')
			.notNull()
			.references(() => campaigns.id),
		/** Not a foreign key: a contact deleted (or merged away) later leaves the campaign's history as it was. */
		contactId: text('contact_id').notNull(),
		/** The Queue message (batch) that sends to this contact. */
		batch: integer('batch').notNull(),
		status: text('status', { enum: RECIPIENT_STATUSES }).notNull(),
		/**
		 * While `sending`: until when the batch that claimed it holds it. A batch that died mid-way leaves its
		 * claims to lapse, and the next delivery of the batch takes them over (and posts with the same message id).
		 */
		claimedUntil: integer('claimed_until'),
		/** Why it failed or was skipped; null otherwise. */
		error: text('error'),
		/** The conversation the message went to, fixed before it is posted so that a retry posts to the same one. */
		conversationId: text('conversation_id'),
		messageId: text('message_id'),
		sentAt: integer('sent_at'),
		/** The contact's first message after the campaign's (within the reply window), and where it wrote it. */
		repliedAt: integer('replied_at'),
		replyConversationId: text('reply_conversation_id'),
	},
	(t) => [
		primaryKey({ columns: [t.campaignId, t.contactId] }),
		index('campaign_recipients_batch').on(t.campaignId, t.batch, t.status),
		index('campaign_recipients_status').on(t.campaignId, t.status),
		// A contact's message looks for the campaigns it may be replying to.
		index('campaign_recipients_contact').on(t.workspaceId, t.contactId, t.sentAt),
	],
);
