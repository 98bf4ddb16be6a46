/**
 * Campaign tracking for visitors who leave the widget for an external messaging app (the WhatsApp bubble):
 * the widget records the reference it put in the app's pre-filled text with the visit's origin; whoever
 * receives the app conversation (a channel integration, an integrator) looks the reference up to attribute
 * it. The reference format is in src/protocol/handoff-ref.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { HANDOFF_CHANNELS, messagingHandoffs } from '../../db/schema';
import { NotFound } from '../../lib/errors';
import { iso } from '../../lib/ids';
import { HANDOFF_REF_PATTERN, normalizeHandoffRef } from '../../protocol/handoff-ref';
import { type OriginInput, storedOrigin } from './visitor-sessions';

export const handoffRefSchema = z
	.string()
	.regex(HANDOFF_REF_PATTERN, 'must be 8 characters of Crockford base32 without I, L, O and U, in upper case')
	.openapi({ example: '7KQ2M9XD' });

export const handoffSchema = z
	.object({
		ref: handoffRefSchema.openapi({ description: 'The reference the widget put in the pre-filled text.' }),
		channel: z.enum(HANDOFF_CHANNELS).openapi({ description: 'The messaging app the visitor left for.' }),
		origin: z.record(z.string(), z.string()).openapi({
			description: 'The campaign origin at the click (utmSource, gclid, landingUrl…); `{}` when none was captured.',
		}),
		createdAt: z
			.string()
			.openapi({ description: 'When the visitor left (ISO 8601).', example: '2026-11-21T12:00:00.000Z' }),
	})
	.openapi('MessagingHandoff');

export type HandoffView = z.infer<typeof handoffSchema>;

type HandoffRow = typeof messagingHandoffs.$inferSelect;

function handoffView(row: Pick<HandoffRow, 'ref' | 'channel' | 'origin' | 'createdAt'>): HandoffView {
	return { ref: row.ref, channel: row.channel, origin: row.origin, createdAt: iso(row.createdAt) };
}

export interface NewHandoff {
	ref: string;
	channel: (typeof HANDOFF_CHANNELS)[number];
	origin: OriginInput | undefined;
	/** The visitor's session, when the widget had one: its origin stands in for an empty one. */
	session: { id: string; origin: Record<string, string> | null } | null;
}

/**
 * Records a handoff once: the same reference again (the widget's keepalive retried, say) returns the stored
 * one and changes nothing. NotFound for an unknown workspace. One statement unless it is a repeat.
 */
export async function recordHandoff(
	db: Database,
	workspaceId: string,
	handoff: NewHandoff,
	now = Date.now(),
): Promise<{ handoff: HandoffView; created: boolean }> {
	const origin = storedOrigin(handoff.origin) ?? handoff.session?.origin ?? {};
	const sessionId = handoff.session?.id ?? null;
	// The workspace check rides in the insert. (An INSERT ... SELECT with an upsert needs the WHERE: SQLite
	// would otherwise parse ON CONFLICT as part of the SELECT.)
	const insert = sql`INSERT INTO messaging_handoffs (workspace_id, ref, channel, origin, session_id, created_at)
		SELECT ${workspaceId}, ${handoff.ref}, ${handoff.channel}, ${JSON.stringify(origin)}, ${sessionId}, ${now}
		WHERE EXISTS (SELECT 1 FROM workspaces WHERE id = ${workspaceId})
		ON CONFLICT (workspace_id, ref) DO NOTHING`;
	const inserted = await db.run(insert);
	if (inserted.meta.changes > 0) {
		return {
			handoff: handoffView({ ref: handoff.ref, channel: handoff.channel, origin, createdAt: now }),
			created: true,
		};
	}
	const stored = await storedHandoff(db, workspaceId, handoff.ref);
	if (!stored) throw new NotFound(`Workspace ${workspaceId} not found.`);
	return { handoff: handoffView(stored), created: false };
}

/**
 * The handoff a reference names in the workspace; NotFound otherwise. The reference is read leniently (any
 * case, I and L as 1, O as 0), as it may have been retyped in the app.
 */
export async function findHandoff(db: Database, workspaceId: string, ref: string): Promise<HandoffView> {
	const normal = normalizeHandoffRef(ref);
	const stored = normal === null ? undefined : await storedHandoff(db, workspaceId, normal);
	if (!stored) throw new NotFound(`No messaging handoff with reference ${ref}.`);
	return handoffView(stored);
}

function storedHandoff(db: Database, workspaceId: string, ref: string) {
	return db
		.select()
		.from(messagingHandoffs)
		.where(and(eq(messagingHandoffs.workspaceId, workspaceId), eq(messagingHandoffs.ref, ref)))
		.get();
}
