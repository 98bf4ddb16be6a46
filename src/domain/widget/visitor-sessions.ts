/**
 * Widget visitors: a browser holds a signed session token for a random visitor id. A page view creates only
 * the session; the contact comes with the first conversation or identify. The token names the visitor, the
 * row says which contact it speaks as, and a conversation is the visitor's only when it is that contact's.
 */
import { z } from '@hono/zod-openapi';
import { and, desc, eq, getTableColumns, gt, isNull, sql } from 'drizzle-orm';
import { deploymentSecret } from '../../auth/secrets';
import { newVisitorId, signVisitorSession, verifyVisitorSession } from '../../auth/visitor-session';
import type { Database, Statement } from '../../db/client';
import { contacts, conversations, visitorSessions, workspaces } from '../../db/schema';
import { commit, release } from '../../events/commit';
import { NotFound, Unauthorized } from '../../lib/errors';
import { iso, isoOrNull, newId } from '../../lib/ids';
import { webUrl } from '../../lib/url-schemas';
import { contactActor } from '../../model/actor';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { contactEventView } from '../crm/contacts';

const campaignValue = z.string().trim().min(1).max(255);

/** Campaign origin the widget captured from the landing URL (and the referrer). */
export const originInputSchema = z
	.strictObject({
		utmSource: campaignValue.optional().openapi({ description: 'utm_source of the landing URL.' }),
		utmMedium: campaignValue.optional().openapi({ description: 'utm_medium of the landing URL.' }),
		utmCampaign: campaignValue.optional().openapi({ description: 'utm_campaign of the landing URL.' }),
		utmContent: campaignValue.optional().openapi({ description: 'utm_content of the landing URL.' }),
		utmTerm: campaignValue.optional().openapi({ description: 'utm_term of the landing URL.' }),
		gclid: z.string().trim().min(1).max(512).optional().openapi({ description: 'The Google Ads click id.' }),
		fbclid: z.string().trim().min(1).max(512).optional().openapi({ description: 'The Meta click id.' }),
		landingUrl: webUrl(2048).optional().openapi({ description: 'The first page of the visit.' }),
		referrer: webUrl(2048).optional().openapi({ description: 'The page that linked to it.' }),
	})
	.openapi('OriginInput');

export type OriginInput = z.infer<typeof originInputSchema>;

export type SessionRow = typeof visitorSessions.$inferSelect;

/**
 * A session not resumed for this long (every page load with the widget resumes it) stops working: a token
 * copied off a shared computer does not open someone's conversations forever.
 */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60 * 1000;

/** The origin as stored: only what was captured, so an empty visit never overwrites a campaign. */
export function storedOrigin(origin: OriginInput | undefined): Record<string, string> | null {
	const entries = Object.entries(origin ?? {}).filter(([, v]) => typeof v === 'string' && v !== '');
	return entries.length === 0 ? null : (Object.fromEntries(entries) as Record<string, string>);
}

export interface StartedSession {
	visitorId: string;
	sessionToken: string;
	resumed: boolean;
	session: SessionRow;
}

/**
 * Resumes the session a returning browser presents (same visitor, same contact, its conversations), or
 * starts a new anonymous one. A token that does not verify, belongs to another workspace or was reset
 * simply starts a new visitor: the widget must always be able to begin.
 */
export async function startSession(
	db: Database,
	env: Env,
	workspaceId: string,
	presented: string | undefined,
	origin: OriginInput | undefined,
	beforeNew: () => Promise<void> = async () => {},
	now = Date.now(),
): Promise<StartedSession> {
	const secret = deploymentSecret(env);
	const captured = storedOrigin(origin);
	if (presented !== undefined) {
		const resumed = (await findSession(db, secret, workspaceId, presented))?.session;
		if (resumed) {
			const session = await touchSession(db, env, resumed, captured, now);
			return { visitorId: resumed.id, sessionToken: presented, resumed: true, session };
		}
	}
	// Only a new session counts against the per-IP session limit: resuming is every page view of a visitor.
	await beforeNew();
	const workspace = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).get();
	if (!workspace) throw new NotFound(`Workspace ${workspaceId} not found.`);
	const session: SessionRow = {
		id: newVisitorId(),
		workspaceId,
		contactId: null,
		origin: captured,
		createdAt: now,
		lastSeenAt: now,
		endedAt: null,
	};
	await db.insert(visitorSessions).values(session);
	const sessionToken = await signVisitorSession(secret, { workspaceId, visitorId: session.id }, now);
	return { visitorId: session.id, sessionToken, resumed: false, session };
}

/** The origin fields that name a campaign; a landing URL or referrer alone is not a new touch. */
const CAMPAIGN_FIELDS = ['utmSource', 'utmMedium', 'utmCampaign', 'utmContent', 'utmTerm', 'gclid', 'fbclid'];

function campaignOf(origin: Record<string, string> | null | undefined): string | null {
	const fields = CAMPAIGN_FIELDS.filter((f) => origin?.[f] !== undefined).map((f) => [f, origin?.[f]]);
	return fields.length === 0 ? null : JSON.stringify(fields);
}

/**
 * A new visit of a known visitor. A visit from a campaign becomes the session's origin and, when it differs
 * from the contact's last touch, the contact's new last touch; a plain visit only refreshes the session.
 */
async function touchSession(
	db: Database,
	env: Env,
	session: SessionRow,
	origin: Record<string, string> | null,
	now: number,
) {
	const campaign = campaignOf(origin);
	const statements: Statement[] = [
		sql`UPDATE visitor_sessions SET last_seen_at = ${now},
			origin = COALESCE(${campaign && JSON.stringify(origin)}, origin)
			WHERE id = ${session.id} AND workspace_id = ${session.workspaceId}`,
	];
	const events: DomainEvent[] = [];
	const contact = campaign ? await sessionContact(db, session) : null;
	if (origin && contact && campaign !== campaignOf(contact.lastOrigin)) {
		statements.push(sql`UPDATE contacts SET last_origin = ${JSON.stringify(origin)},
			first_origin = COALESCE(first_origin, ${JSON.stringify(origin)}), updated_at = max(updated_at + 1, ${now})
			WHERE id = ${contact.id} AND workspace_id = ${session.workspaceId}`);
		const changes = {
			...(contact.firstOrigin ? {} : { firstOrigin: { from: null, to: origin } }),
			lastOrigin: { from: contact.lastOrigin, to: origin },
		};
		const payload = { contact: contactEventView(contact), ...changesOf(changes) };
		events.push(newEvent('contact.updated', session.workspaceId, contactActor(contact.id), payload, now));
	}
	const committed = await commit(db, { statements, events });
	await release(env, committed.events);
	return { ...session, lastSeenAt: now, origin: campaign ? origin : session.origin };
}

/**
 * Whether the conversation is the session's contact's, as a column of the session's row. Spelled out in SQL:
 * drizzle writes a column of the query's only table unqualified, which inside the subquery would name the
 * conversation's own column, and the check would always hold (a test of another visitor's access caught it).
 */
function ownedBySession(conversationId: string) {
	return sql<number>`EXISTS (SELECT 1 FROM conversations AS owned WHERE owned.workspace_id = visitor_sessions.workspace_id
		AND owned.id = ${conversationId} AND owned.contact_id = visitor_sessions.contact_id)`;
}

/**
 * The live session `token` proves, and whether `conversationId` (when given) is its contact's, read together:
 * every conversation route of the widget asks both, and one statement is one round trip to D1's primary
 * where two were (docs/EDGE.md). Null when the token proves no live session of the workspace.
 */
async function findSession(
	db: Database,
	secret: string,
	workspaceId: string,
	token: string,
	conversationId?: string,
): Promise<{ session: SessionRow; owns: boolean } | null> {
	const claims = await verifyVisitorSession(secret, token);
	if (!claims || claims.workspaceId !== workspaceId) return null;
	const owns = conversationId === undefined ? sql<number>`0` : ownedBySession(conversationId);
	const row = await db
		.select({ ...getTableColumns(visitorSessions), owns })
		.from(visitorSessions)
		.where(
			and(
				eq(visitorSessions.workspaceId, workspaceId),
				eq(visitorSessions.id, claims.visitorId),
				isNull(visitorSessions.endedAt),
				gt(visitorSessions.lastSeenAt, Date.now() - SESSION_IDLE_MS),
			),
		)
		.get();
	if (!row) return null;
	const { owns: owned, ...session } = row;
	return { session, owns: owned === 1 };
}

const NO_SESSION = 'Missing, invalid or ended visitor session: start one with POST /widget/{workspaceId}/sessions.';

/** The session a request's token proves, or Unauthorized. */
export async function authenticateSession(db: Database, env: Env, workspaceId: string, token: string | undefined) {
	const found = token ? await findSession(db, deploymentSecret(env), workspaceId, token) : null;
	if (!found) throw new Unauthorized(NO_SESSION);
	return found.session;
}

/**
 * The session a request's token proves (Unauthorized without one), and NotFound unless the conversation is its
 * contact's (the same answer as for a missing one): the access check of every conversation route, in one read.
 */
export async function authenticateForConversation(
	db: Database,
	env: Env,
	workspaceId: string,
	token: string | undefined,
	conversationId: string,
): Promise<SessionRow> {
	const found = token ? await findSession(db, deploymentSecret(env), workspaceId, token, conversationId) : null;
	if (!found) throw new Unauthorized(NO_SESSION);
	if (!found.owns) throw new NotFound(`Conversation ${conversationId} not found.`);
	return found.session;
}

/** `reset` on the site's logout: this token stops working; the browser starts a new anonymous visitor. */
export async function endSession(db: Database, session: SessionRow, now = Date.now()): Promise<void> {
	await db
		.update(visitorSessions)
		.set({ endedAt: now })
		.where(and(eq(visitorSessions.workspaceId, session.workspaceId), eq(visitorSessions.id, session.id)));
}

/**
 * The session's contact, created on first need with the session's origin as first and last touch. Two tabs
 * racing to create it end up with the same one: the insert and the link happen only while the session has
 * none, in one transaction.
 */
export async function ensureContact(db: Database, env: Env, session: SessionRow, now = Date.now()): Promise<string> {
	if (session.contactId) return session.contactId;
	const contactId = newId('ctc', now);
	const origin = session.origin && JSON.stringify(session.origin);
	const unlinked = sql`EXISTS (SELECT 1 FROM visitor_sessions WHERE id = ${session.id} AND workspace_id = ${session.workspaceId} AND contact_id IS NULL)`;
	const event = newEvent(
		'contact.created',
		session.workspaceId,
		contactActor(contactId),
		{ contact: contactEventView({ id: contactId, name: null, email: null, phone: null }) },
		now,
	);
	const committed = await commit(db, {
		statements: [
			sql`INSERT INTO contacts (id, workspace_id, custom_fields, first_origin, last_origin, created_at, updated_at)
				SELECT ${contactId}, ${session.workspaceId}, '{}', ${origin}, ${origin}, ${now}, ${now} WHERE ${unlinked}`,
			sql`UPDATE visitor_sessions SET contact_id = ${contactId} WHERE id = ${session.id} AND workspace_id = ${session.workspaceId} AND contact_id IS NULL`,
		],
		// Announced only when this request created the contact (another tab may have won the race).
		events: [{ event, onlyIf: sql`EXISTS (SELECT 1 FROM contacts WHERE id = ${contactId})` }],
	});
	await release(env, committed.events);
	const row = await db
		.select({ contactId: visitorSessions.contactId })
		.from(visitorSessions)
		.where(and(eq(visitorSessions.workspaceId, session.workspaceId), eq(visitorSessions.id, session.id)))
		.get();
	session.contactId = row?.contactId ?? contactId;
	return session.contactId;
}

export const visitorConversationSchema = z
	.object({
		id: z.string().openapi({ description: 'The conversation id.' }),
		status: z.string().openapi({ description: '`open`, `pending` or `closed`.' }),
		lastMessageSeq: z.number().int().openapi({ description: 'The `seq` of its last message.' }),
		unread: z.number().int().openapi({ description: 'Messages from the team the visitor has not read.' }),
		createdAt: z.string().openapi({ description: 'When it started (ISO 8601).' }),
		lastMessageAt: z
			.string()
			.nullable()
			.openapi({ description: 'When its last message was sent; null before the first.' }),
	})
	.openapi('VisitorConversation');

/**
 * A conversation's columns with its last message the visitor may see, in the same statement: the summary row's
 * `last_message_seq` and `_at` count the team's private notes, whose seq and time are not the visitor's.
 */
// One lookup for both (its seq and time), written out: drizzle leaves the columns of a one-table select
// unqualified, which inside the subquery would name the messages' own.
const lastSeen = sql<
	string | null
>`(SELECT json_object('seq', m.seq, 'at', m.created_at) FROM messages m WHERE m.workspace_id = conversations.workspace_id
		AND m.conversation_id = conversations.id AND m.private = 0 ORDER BY m.seq DESC LIMIT 1)`;
const visitorColumns = { ...getTableColumns(conversations), lastSeen };
type VisitorConversationRow = typeof conversations.$inferSelect & { lastSeen: string | null };

/** The visitor's conversations, most recent first: only what a visitor may see of them. */
export async function visitorConversations(db: Database, session: SessionRow) {
	if (!session.contactId) return [];
	const rows = await db
		.select(visitorColumns)
		.from(conversations)
		.where(and(eq(conversations.workspaceId, session.workspaceId), eq(conversations.contactId, session.contactId)))
		.orderBy(desc(conversations.lastActivityAt), desc(conversations.id))
		.limit(50);
	return rows.map(seenByVisitor);
}

function seenByVisitor(c: VisitorConversationRow): z.infer<typeof visitorConversationSchema> {
	const last = c.lastSeen === null ? null : (JSON.parse(c.lastSeen) as { seq: number; at: number });
	return {
		id: c.id,
		status: c.status,
		lastMessageSeq: last?.seq ?? 0,
		unread: c.unreadByContact,
		createdAt: iso(c.createdAt),
		lastMessageAt: isoOrNull(last?.at ?? null),
	};
}

function ofVisitor(session: SessionRow, conversationId: string) {
	return and(
		eq(conversations.workspaceId, session.workspaceId),
		eq(conversations.id, conversationId),
		eq(conversations.contactId, session.contactId ?? ''),
	);
}

/** One of the visitor's conversations as the visitor sees it (NotFound as `authenticateForConversation`). */
export async function visitorConversationView(db: Database, session: SessionRow, conversationId: string) {
	const row = session.contactId
		? await db.select(visitorColumns).from(conversations).where(ofVisitor(session, conversationId)).get()
		: undefined;
	if (!row) throw new NotFound(`Conversation ${conversationId} not found.`);
	return seenByVisitor(row);
}

/** The contact row of a session (after ensureContact). */
export async function sessionContact(db: Database, session: SessionRow) {
	if (!session.contactId) return null;
	return (
		(await db
			.select()
			.from(contacts)
			.where(and(eq(contacts.workspaceId, session.workspaceId), eq(contacts.id, session.contactId)))
			.get()) ?? null
	);
}

/**
 * Whether a visitor's session still works and still reaches the conversation (its contact may have changed
 * since the socket opened, on identify): what an open socket checks before acting.
 */
export async function sessionReaches(
	db: Database,
	workspaceId: string,
	visitorId: string,
	conversationId: string,
): Promise<boolean> {
	const row = await db
		.select({ id: visitorSessions.id })
		.from(visitorSessions)
		.innerJoin(
			conversations,
			and(eq(conversations.contactId, visitorSessions.contactId), eq(conversations.workspaceId, workspaceId)),
		)
		.where(
			and(
				eq(visitorSessions.workspaceId, workspaceId),
				eq(visitorSessions.id, visitorId),
				isNull(visitorSessions.endedAt),
				gt(visitorSessions.lastSeenAt, Date.now() - SESSION_IDLE_MS),
				eq(conversations.id, conversationId),
			),
		)
		.get();
	return row !== undefined;
}

/**
 * A contact's conversations whose sockets `reset` closes: the 200 most recently active (older ones have no
 * open widget; any that did would be closed by its own session check on its next frame).
 */
export async function contactConversationIds(db: Database, workspaceId: string, contactId: string | null) {
	if (!contactId) return [];
	const rows = await db
		.select({ id: conversations.id })
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.contactId, contactId)))
		.orderBy(desc(conversations.lastActivityAt))
		.limit(200);
	return rows.map((r) => r.id);
}

/** What is already known of the visitor's contact (typed or verified), for the pre-chat form's required fields. */
export async function knownDetails(db: Database, session: SessionRow) {
	if (!session.contactId) return {};
	const contact = await db
		.select({
			name: contacts.name,
			email: contacts.email,
			claimedEmail: contacts.claimedEmail,
			phone: contacts.phone,
			claimedPhone: contacts.claimedPhone,
		})
		.from(contacts)
		.where(and(eq(contacts.workspaceId, session.workspaceId), eq(contacts.id, session.contactId)))
		.get();
	if (!contact) return {};
	return {
		name: contact.name,
		email: contact.email ?? contact.claimedEmail,
		phone: contact.phone ?? contact.claimedPhone,
	};
}
