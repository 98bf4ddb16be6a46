/** Contacts, the widget visitors that speak as them, and tags. */

import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { CustomValue } from '../../model/custom-fields';

export const contacts = sqliteTable(
	'contacts',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		name: text('name'),
		email: text('email'),
		phone: text('phone'),
		/** Values by custom field key (see custom-values.ts), each checked against its definition when written. */
		customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, CustomValue | null>>().notNull(),
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
		/** When the contact opted out of campaigns (campaigns skip it); null while it may be sent to. */
		optedOutAt: integer('opted_out_at'),
		/** How it opted out: `api` unless the caller said (an unsubscribe link, a form, an operator). */
		optedOutSource: text('opted_out_source'),
		/** When mail to `email` last bounced (ms): the address is failing until it changes or a mail gets through. */
		emailFailingAt: integer('email_failing_at'),
		/** The bounce's reason. */
		emailFailure: text('email_failure'),
		/** When the contact stopped continuation mails (the link in each one); campaigns use `optedOutAt`. */
		continuationOptOutAt: integer('continuation_opt_out_at'),
		/** The contact's WhatsApp id (`wa_id`: the phone number in digits, no `+`), from a WhatsApp message. */
		whatsappId: text('whatsapp_id'),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
		/**
		 * The last five characters of the id: how the console names a contact it knows nothing else about
		 * ("Visitor 2PEKZ"), kept as a column so the contact search index (`contacts_fts`) holds it too.
		 */
		shortId: text('short_id').generatedAlwaysAs(sql`substr(id, -5)`, { mode: 'virtual' }),
	},
	(t) => [
		uniqueIndex('contacts_workspace_email').on(t.workspaceId, t.email),
		uniqueIndex('contacts_workspace_phone').on(t.workspaceId, t.phone),
		uniqueIndex('contacts_workspace_external_id').on(t.workspaceId, t.externalId),
		uniqueIndex('contacts_workspace_whatsapp').on(t.workspaceId, t.whatsappId),
		// The contact list pages newest first by keyset on (created_at, id).
		index('contacts_workspace_created').on(t.workspaceId, t.createdAt, t.id),
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
	(t) => [
		primaryKey({ columns: [t.contactId, t.tagId] }),
		// The contacts carrying a tag: the tag filter, and a tag's deletion.
		index('contact_tags_tag').on(t.tagId, t.contactId),
	],
);
