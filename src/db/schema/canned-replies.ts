/** Canned replies: the team's saved answers, inserted in the composer by typing `/` and their shortcut. */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const cannedReplies = sqliteTable(
	'canned_replies',
	{
		id: text('id').primaryKey(),
		workspaceId: text('workspace_id').notNull(),
		/** The word typed after `/`: unique in the workspace, so `/refund` always means one reply. */
		shortcut: text('shortcut').notNull(),
		title: text('title'),
		/** A Liquid template (`{{ contact.name }}`), checked when saved and rendered for a conversation. */
		text: text('text').notNull(),
		/**
		 * The operator who wrote it, who may change it besides the admins. Kept as is when that operator is
		 * deleted: the reply stays the team's, and admins manage it from then on.
		 */
		authorId: text('author_id').notNull(),
		createdAt: integer('created_at').notNull(),
		updatedAt: integer('updated_at').notNull(),
	},
	(t) => [
		// The list's order and the conflict check in one index.
		uniqueIndex('canned_replies_shortcut').on(t.workspaceId, t.shortcut),
		index('canned_replies_author').on(t.workspaceId, t.authorId),
	],
);
