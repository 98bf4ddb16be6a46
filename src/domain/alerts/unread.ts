/**
 * The console's unread counts: per view of the inbox (mine, unassigned, all), how many conversations hold
 * messages no operator has read. Counted in D1 from each conversation's `unreadByOperators` (which the room
 * keeps, and a read receipt clears), so a count is exact and never negative whatever the console missed; the
 * read touches only the conversations with something unread (the `conversations_unread` partial index).
 */
import { z } from '@hono/zod-openapi';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { conversations } from '../../db/schema';

export const unreadCountsSchema = z
	.object({
		mine: z.number().int().openapi({ description: 'Conversations assigned to you with unread messages.' }),
		unassigned: z.number().int().openapi({ description: 'Unassigned conversations with unread messages.' }),
		all: z.number().int().openapi({ description: 'Every conversation of the workspace with unread messages.' }),
	})
	.openapi('UnreadCounts');
export type UnreadCounts = z.infer<typeof unreadCountsSchema>;

/** The caller's unread counts, in one read. */
export async function unreadCounts(db: Database, workspaceId: string, operatorId: string): Promise<UnreadCounts> {
	const c = conversations;
	const row = await db
		.select({
			mine: sql<number>`coalesce(sum(${c.assigneeId} = ${operatorId}), 0)`,
			unassigned: sql<number>`coalesce(sum(${c.assigneeId} IS NULL), 0)`,
			all: sql<number>`count(*)`,
		})
		.from(c)
		.where(and(eq(c.workspaceId, workspaceId), gt(c.unreadByOperators, 0)))
		.get();
	return { mine: Number(row?.mine ?? 0), unassigned: Number(row?.unassigned ?? 0), all: Number(row?.all ?? 0) };
}
