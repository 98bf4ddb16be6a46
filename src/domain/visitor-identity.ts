/**
 * What a visitor tells us about themselves (`identify`, the pre-chat form) and how far we believe it.
 *
 * Without proof, details are stored as unverified on the visitor's own contact: they never find, read, take
 * over or merge into another contact, and a value another contact already holds is kept aside as "claimed".
 * With a valid identity JWT (signed by the site's backend with the workspace's identity secret) the visitor
 * becomes the contact with that external id or e-mail, and its anonymous conversations move along.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, or, sql } from 'drizzle-orm';
import { type IdentityFailure, verifyIdentityJwt } from '../auth/identity-jwt';
import { identitySecret } from '../auth/secrets';
import { type Database, runBatch, type Statement } from '../db/client';
import { contacts, workspaces } from '../db/schema';
import { type DomainEvent, newEvent } from '../events/catalogue';
import { outboxStatements, releaseEvents } from '../events/outbox';
import { Conflict } from '../lib/errors';
import { newId } from '../lib/ids';
import { contactEventView, contactView, normalizePhone } from './contacts';
import { identityVerificationOn } from './identity-settings';
import { ensureContact, type SessionRow } from './visitor-sessions';
import { phoneNumber } from './widget-settings';

const customValue = z.union([z.string().max(500), z.number().finite(), z.boolean(), z.null()]);

/** Scalar custom attributes only: nested objects would not fit a contact's fields or a rule's condition. */
export const customDataSchema = z
	.record(
		z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, 'keys start with a letter: letters, digits, _ (40 max)'),
		customValue,
	)
	.refine((data) => Object.keys(data).length <= 50, 'at most 50 custom attributes');

export const visitorDetailsSchema = z.strictObject({
	name: z.string().trim().min(1).max(200).optional(),
	email: z.email().max(254).optional(),
	phone: phoneNumber.optional(),
	customData: customDataSchema.optional(),
});

export const identifySchema = visitorDetailsSchema
	.extend({
		jwt: z
			.string()
			.max(4096)
			.optional()
			.openapi({ description: "An HS256 JWT from the site's backend (claims: email or external_id, exp)." }),
	})
	.openapi('VisitorIdentity');

export type VisitorDetails = z.infer<typeof visitorDetailsSchema>;
type ContactRow = typeof contacts.$inferSelect;

export interface IdentifyResult {
	contact: ReturnType<typeof contactView>;
	verified: boolean;
	/** Why a presented JWT was not accepted, or that the workspace has no identity secret. */
	unverifiedReason: IdentityFailure | 'no_identity_secret' | 'no_jwt' | null;
}

/** Checks a JWT against the workspace's current identity secret. */
async function verifiedClaims(db: Database, env: Env, workspaceId: string, jwt: string | undefined) {
	const workspace = await db
		.select({ version: workspaces.identitySecretVersion })
		.from(workspaces)
		.where(eq(workspaces.id, workspaceId))
		.get();
	if (!identityVerificationOn(workspace?.version ?? null))
		return { ok: false as const, reason: 'no_identity_secret' as const };
	if (jwt === undefined) return { ok: false as const, reason: 'no_jwt' as const };
	return verifyIdentityJwt(await identitySecret(env.PARLEY_SECRET, workspaceId, workspace?.version as number), jwt);
}

/** `identify`: applies the details, verified or not, and returns the visitor's contact. */
export async function identifyVisitor(
	db: Database,
	env: Env,
	session: SessionRow,
	input: z.infer<typeof identifySchema>,
	now = Date.now(),
): Promise<IdentifyResult> {
	const { jwt, ...details } = input;
	const check = jwt === undefined ? null : await verifiedClaims(db, env, session.workspaceId, jwt);
	if (check?.ok) {
		const contactId = await adoptVerifiedContact(db, env, session, check.claims, now);
		const contact = await applyDetails(
			db,
			env,
			session.workspaceId,
			contactId,
			{ ...details, name: details.name ?? check.claims.name },
			true,
			now,
		);
		return { contact: contactView(contact), verified: true, unverifiedReason: null };
	}
	const contactId = await ensureContact(db, env, session, now);
	const contact = await applyDetails(db, env, session.workspaceId, contactId, details, false, now);
	return {
		contact: contactView(contact),
		verified: contact.verifiedAt !== null,
		unverifiedReason: check === null ? 'no_jwt' : check.reason,
	};
}

/**
 * The proven identity's contact becomes the session's: found by external id, else e-mail, else the session's
 * own contact is marked verified. An anonymous contact's conversations move to the proven one (the lead
 * becomes the user, as it does in Intercom); a previously verified contact keeps its own.
 */
async function adoptVerifiedContact(
	db: Database,
	env: Env,
	session: SessionRow,
	claims: { email?: string; externalId?: string },
	now: number,
): Promise<string> {
	const ws = session.workspaceId;
	const matches = await db
		.select()
		.from(contacts)
		.where(
			and(
				eq(contacts.workspaceId, ws),
				or(
					claims.externalId === undefined ? undefined : eq(contacts.externalId, claims.externalId),
					claims.email === undefined ? undefined : eq(contacts.email, claims.email),
				),
			),
		);
	const target =
		matches.find((c) => claims.externalId !== undefined && c.externalId === claims.externalId) ??
		matches.find((c) => c.email === claims.email && (claims.externalId === undefined || c.externalId === null));
	const current = session.contactId
		? await db
				.select()
				.from(contacts)
				.where(and(eq(contacts.workspaceId, ws), eq(contacts.id, session.contactId)))
				.get()
		: undefined;
	// An anonymous (unverified) contact becomes the proven one; a session speaking as another verified person
	// (a shared computer without reset) gets a contact of its own instead of relabelling that person.
	const anonymous = current && current.verifiedAt === null ? current : undefined;
	const origin = session.origin && JSON.stringify(session.origin);
	const statements: Statement[] = [];
	const events: DomainEvent[] = [];
	let contactId = target?.id ?? anonymous?.id;
	if (contactId === undefined && !current) contactId = await ensureContact(db, env, session, now);
	if (contactId === undefined) {
		contactId = newId('ctc', now);
		const fresh = { id: contactId, name: null, email: null, phone: null };
		statements.push(
			db.insert(contacts).values({
				...fresh,
				workspaceId: ws,
				customFields: {},
				firstOrigin: session.origin,
				lastOrigin: session.origin,
				createdAt: now,
				updatedAt: now,
			}),
		);
		events.push(newEvent('contact.created', ws, { contact: contactEventView(fresh) }, now));
	}
	// What the site's backend signed wins over what the visitor typed; the visit's campaign follows the
	// visitor onto the proven contact (as first touch only if it had none).
	statements.push(
		sql`UPDATE contacts SET verified_at = COALESCE(verified_at, ${now}), updated_at = ${now},
			external_id = COALESCE(${claims.externalId ?? null}, external_id),
			email = COALESCE(${claims.email ?? null}, email),
			first_origin = COALESCE(first_origin, ${origin}), last_origin = COALESCE(${origin}, last_origin)
			WHERE id = ${contactId} AND workspace_id = ${ws}`,
	);
	if (anonymous && anonymous.id !== contactId) {
		statements.push(
			sql`UPDATE conversations SET contact_id = ${contactId} WHERE contact_id = ${anonymous.id} AND workspace_id = ${ws}`,
		);
	}
	statements.push(
		sql`UPDATE visitor_sessions SET contact_id = ${contactId} WHERE id = ${session.id} AND workspace_id = ${ws}`,
	);
	const event = newEvent(
		'contact.updated',
		ws,
		{
			contact: contactEventView({
				id: contactId,
				name: target?.name ?? anonymous?.name ?? null,
				email: claims.email ?? target?.email ?? anonymous?.email ?? null,
				phone: target?.phone ?? anonymous?.phone ?? null,
				verifiedAt: now,
			}),
			changed: ['verified'],
		},
		now,
	);
	events.push(event);
	await runUnique(db, [...statements, ...outboxStatements(db, events)]);
	await releaseEvents(env, events);
	session.contactId = contactId;
	return contactId;
}

/**
 * Writes name, e-mail, phone and custom data on the contact. An e-mail or phone is set only when no other
 * contact holds it and, on a verified contact, only from a verified source; otherwise it is kept as claimed.
 */
export async function applyDetails(
	db: Database,
	env: Env,
	workspaceId: string,
	contactId: string,
	details: VisitorDetails,
	proven: boolean,
	now: number,
): Promise<ContactRow> {
	const email = details.email?.toLowerCase();
	const phone = details.phone === undefined ? undefined : normalizePhone(details.phone);
	const rows = await db
		.select()
		.from(contacts)
		.where(
			and(
				eq(contacts.workspaceId, workspaceId),
				or(
					eq(contacts.id, contactId),
					email === undefined ? undefined : eq(contacts.email, email),
					phone === undefined ? undefined : eq(contacts.phone, phone),
				),
			),
		);
	const contact = rows.find((r) => r.id === contactId);
	if (!contact) throw new Conflict('The visitor contact changed during this request; retry.');
	const mayReplace = proven || contact.verifiedAt === null;
	const settle = (value: string | undefined, column: 'email' | 'phone') => {
		if (value === undefined || value === contact[column]) return {};
		const heldElsewhere = rows.some((r) => r.id !== contactId && r[column] === value);
		const claimed = column === 'email' ? 'claimedEmail' : 'claimedPhone';
		return heldElsewhere || !mayReplace ? { [claimed]: value } : { [column]: value };
	};
	const changes: Partial<ContactRow> = {
		...(details.name === undefined || details.name === contact.name ? {} : { name: details.name }),
		...settle(email, 'email'),
		...settle(phone, 'phone'),
		...(details.customData === undefined ? {} : { customFields: { ...contact.customFields, ...details.customData } }),
	};
	const changed = Object.keys(changes);
	if (changed.length === 0) return contact;
	const updated = { ...contact, ...changes, updatedAt: now };
	const event = newEvent('contact.updated', workspaceId, { contact: contactEventView(updated), changed }, now);
	await runUnique(db, [
		db
			.update(contacts)
			.set({ ...changes, updatedAt: now })
			.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, contactId))),
		...outboxStatements(db, [event]),
	]);
	await releaseEvents(env, [event]);
	return updated;
}

/** Two visitors claiming the same e-mail at the same instant: the loser gets a 409 and retries. */
async function runUnique(db: Database, statements: Parameters<typeof runBatch>[1]) {
	try {
		await runBatch(db, statements);
	} catch (error) {
		if (String(error).includes('UNIQUE constraint failed: contacts.')) {
			throw new Conflict('Another visitor took this e-mail or phone at the same moment; retry.', { cause: error });
		}
		throw error;
	}
}
