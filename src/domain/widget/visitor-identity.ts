/**
 * What a visitor tells us about themselves (`identify`, the pre-chat form) and how far we believe it.
 *
 * Typed details are never proof: a name and custom data go on the visitor's own contact, but an e-mail or
 * phone is kept as `claimedEmail`/`claimedPhone`, never in the columns contacts are found by, so typing
 * someone's address can never lead to their contact (now or when they later log in). Only a valid identity
 * JWT (signed by the site's backend with the workspace's identity secret) sets `email` and `externalId`: the
 * visitor becomes the contact with that external id or e-mail, and its anonymous conversations move along.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, or, sql } from 'drizzle-orm';
import { type IdentityFailure, verifyIdentityJwt } from '../../auth/identity-jwt';
import { deploymentSecret, identitySecret } from '../../auth/secrets';
import { type Database, type Statement, violatesUnique } from '../../db/client';
import { contacts, conversations, workspaces } from '../../db/schema';
import { commit, IF_CHANGED, release } from '../../events/commit';
import { Conflict, Invalid } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { keyedRecord } from '../../lib/schema-rules';
import { contactActor } from '../../model/actor';
import { customFieldKey } from '../../model/custom-fields';
import { emailAddress } from '../../model/email-address';
import { changesOf, type DomainEvent, newEvent } from '../../model/events';
import { conversationsMoved } from '../conversations/conversations';
import { disconnectVisitor } from '../conversations/live';
import { contactEventView, contactView, normalizePhone } from '../crm/contacts';
import {
	type CheckedCustomValues,
	checkedCustomValues,
	customChangeEntries,
	customFieldsUnchanged,
	customFieldsWrite,
	customValueChanges,
	definitionGone,
	definitionsGuard,
} from '../crm/custom-values';
import { identityVerificationOn } from './identity-settings';
import { phoneNumber } from './settings';
import {
	contactConversationIds,
	ensureContact,
	type OriginInput,
	type SessionRow,
	startSession,
	visitorConversations,
} from './visitor-sessions';

const customValue = z.union([z.string().max(500), z.number().finite(), z.boolean(), z.null()]);

/** Scalar custom attributes only: nested objects would not fit a contact's fields or a rule's condition. */
export const customDataSchema = keyedRecord(customFieldKey, customValue)
	.refine((data) => Object.keys(data).length <= 50, 'at most 50 custom attributes')
	.openapi({ maxProperties: 50 });

export const visitorDetailsSchema = z.strictObject({
	name: z.string().trim().min(1).max(200).optional().openapi({ description: 'Full name.' }),
	email: emailAddress().optional().openapi({ description: 'E-mail address.' }),
	phone: phoneNumber.optional().openapi({ description: 'Phone number with the country code.' }),
	customData: customDataSchema.optional().openapi({
		description:
			"Values of the workspace's contact custom fields (50 at most), each checked against its definition: an undefined key is refused.",
	}),
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
	const version = workspace?.version ?? null;
	if (!identityVerificationOn(version)) return { ok: false as const, reason: 'no_identity_secret' as const };
	if (jwt === undefined) return { ok: false as const, reason: 'no_jwt' as const };
	return verifyIdentityJwt(await identitySecret(deploymentSecret(env), workspaceId, version), jwt);
}

/** `identify`: proves the identity when a valid JWT comes along, then applies the typed details. */
export async function identifyVisitor(
	db: Database,
	env: Env,
	session: SessionRow,
	input: z.infer<typeof identifySchema>,
	now = Date.now(),
): Promise<IdentifyResult> {
	const { jwt, customData, ...details } = input;
	// Checked before anything is written: a refused attribute leaves the visitor as it was.
	const custom = await checkedCustomValues(db, session.workspaceId, 'contact', customData ?? {}, { at: 'customData' });
	const check = jwt === undefined ? null : await verifiedClaims(db, env, session.workspaceId, jwt);
	const contactId = check?.ok
		? await adoptVerifiedContact(db, env, session, check.claims, now)
		: await ensureContact(db, env, session, now);
	// What the site's backend signed wins over what was typed.
	const name = check?.ok ? (check.claims.name ?? details.name) : details.name;
	const contact = await applyDetails(db, env, session.workspaceId, contactId, { ...details, name }, custom, now);
	const verified = contact.verifiedAt !== null;
	return {
		contact: contactView(contact),
		verified,
		unverifiedReason: verified ? null : check === null ? 'no_jwt' : check.ok ? null : check.reason,
	};
}

/**
 * The widget's session start, with who the visitor is when the page says it: a logged-in user's page starts
 * (or resumes) its session and identifies it in one request, and gets the conversations that identity brings.
 */
export async function beginVisit(
	db: Database,
	env: Env,
	workspaceId: string,
	request: { sessionToken?: string; origin?: OriginInput; identity?: z.infer<typeof identifySchema> },
	beforeNew: () => Promise<void>,
) {
	const { session, ...started } = await startSession(
		db,
		env,
		workspaceId,
		request.sessionToken,
		request.origin,
		beforeNew,
	);
	// The session exists by now: a refused identity (details over a limit) must not fail the start, or the
	// widget would start another session on every page and never get a token. A Conflict is a race of the
	// moment ("retry"): it stays an error, which the widget's next identify retries.
	const identified = request.identity
		? await identifyVisitor(db, env, session, request.identity).then(
				({ verified, unverifiedReason }) => ({ verified, unverifiedReason }),
				(error: unknown) => {
					if (!(error instanceof Invalid)) throw error;
					return { verified: false, unverifiedReason: 'refused' as const, refusal: error.message };
				},
			)
		: undefined;
	const conversations = await visitorConversations(db, session);
	return identified ? { ...started, conversations, identified } : { ...started, conversations };
}

/**
 * The proven identity's contact becomes the session's: found by external id, else by e-mail among contacts
 * with no external id of their own, else the session's own contact is marked verified. An anonymous contact's conversations move to the proven one (the lead
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
	// A contact that holds an external id is that account of the site's, and only a proof of that same id
	// reaches it: an e-mail alone (or with another id) may be an address that moved between accounts.
	const target =
		matches.find((c) => claims.externalId !== undefined && c.externalId === claims.externalId) ??
		matches.find((c) => c.email === claims.email && c.externalId === null);
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
		events.push(newEvent('contact.created', ws, contactActor(contactId), { contact: contactEventView(fresh) }, now));
	}
	// The signed e-mail goes where contacts are found by, unless another contact holds it (an address that
	// moved between the site's accounts): then it is only noted. The visit's campaign follows the visitor
	// onto the proven contact (as first touch only if it had none).
	const signedEmail = claims.email ?? null;
	const emailTaken = sql`${signedEmail} IS NOT NULL AND EXISTS (SELECT 1 FROM contacts other
		WHERE other.workspace_id = ${ws} AND other.email = ${signedEmail} AND other.id != ${contactId})`;
	statements.push(
		sql`UPDATE contacts SET verified_at = COALESCE(verified_at, ${now}), updated_at = max(updated_at + 1, ${now}),
			external_id = COALESCE(${claims.externalId ?? null}, external_id),
			email = CASE WHEN ${emailTaken} THEN email ELSE COALESCE(${signedEmail}, email) END,
			claimed_email = CASE WHEN ${emailTaken} THEN ${signedEmail} ELSE claimed_email END,
			first_origin = COALESCE(first_origin, ${origin}), last_origin = COALESCE(${origin}, last_origin)
			WHERE id = ${contactId} AND workspace_id = ${ws}`,
	);
	if (anonymous && anonymous.id !== contactId) {
		const moving = await db
			.select()
			.from(conversations)
			.where(and(eq(conversations.workspaceId, ws), eq(conversations.contactId, anonymous.id)));
		statements.push(
			sql`UPDATE conversations SET contact_id = ${contactId} WHERE contact_id = ${anonymous.id} AND workspace_id = ${ws}`,
		);
		events.push(...conversationsMoved(ws, contactActor(contactId), moving, 'contactId', contactId, now));
	}
	statements.push(
		sql`UPDATE visitor_sessions SET contact_id = ${contactId} WHERE id = ${session.id} AND workspace_id = ${ws}`,
	);
	// The event says what this proof changed, from the row as it will be written; a repeated identify with
	// the same JWT changes nothing and announces nothing.
	const before = target ?? anonymous;
	const emailTakenElsewhere = matches.some((c) => c.email === signedEmail && c.id !== contactId);
	const email = signedEmail !== null && !emailTakenElsewhere ? signedEmail : (before?.email ?? null);
	const changes = {
		...(before?.verifiedAt == null ? { verified: { from: false, to: true } } : {}),
		...(claims.externalId !== undefined && before?.externalId !== claims.externalId
			? { externalId: { from: before?.externalId ?? null, to: claims.externalId } }
			: {}),
		...(email !== (before?.email ?? null) ? { email: { from: before?.email ?? null, to: email } } : {}),
	};
	if (Object.keys(changes).length > 0) {
		const verifiedAt = before?.verifiedAt ?? now;
		const contact = { id: contactId, name: before?.name ?? null, email, phone: before?.phone ?? null, verifiedAt };
		const payload = { contact: contactEventView(contact), ...changesOf(changes) };
		events.push(newEvent('contact.updated', ws, contactActor(contactId), payload, now));
	}
	const committed = await commit(db, { statements, events }, uniqueRace);
	await release(env, committed.events);
	if (current && !anonymous && current.id !== contactId) {
		// The browser now speaks as someone else: its sockets on the previous person's conversations close.
		await disconnectVisitor(env, await contactConversationIds(db, ws, current.id), session.id);
	}
	session.contactId = contactId;
	return contactId;
}

/**
 * Writes what a visitor typed on its contact: the name and custom values (checked against their definitions
 * by the caller) as given, an e-mail or phone only as claimed (see the top of this file). Each custom value is
 * written on its own key, so a concurrent write of another key stays.
 */
export async function applyDetails(
	db: Database,
	env: Env,
	workspaceId: string,
	contactId: string,
	details: Omit<VisitorDetails, 'customData'>,
	custom: CheckedCustomValues,
	now: number,
): Promise<ContactRow> {
	const email = details.email?.toLowerCase();
	const phone = details.phone === undefined ? undefined : normalizePhone(details.phone);
	for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
		const contact = await db
			.select()
			.from(contacts)
			.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, contactId)))
			.get();
		if (!contact) throw new Conflict('The visitor contact changed during this request; retry.');
		const movedCustom = customValueChanges(contact.customFields, custom);
		const changes: Partial<Pick<ContactRow, 'name' | 'claimedEmail' | 'claimedPhone'>> = {
			...(details.name === undefined || details.name === contact.name ? {} : { name: details.name }),
			...(email === undefined || email === contact.email || email === contact.claimedEmail
				? {}
				: { claimedEmail: email }),
			...(phone === undefined || phone === contact.phone || phone === contact.claimedPhone
				? {}
				: { claimedPhone: phone }),
		};
		const changed = Object.keys(changes) as Array<keyof typeof changes>;
		if (changed.length === 0 && movedCustom.size === 0) return contact;
		const customFields = { ...contact.customFields };
		for (const [key, { to }] of movedCustom) {
			if (to === null) delete customFields[key];
			else customFields[key] = to;
		}
		const updatedAt = Math.max(now, contact.updatedAt + 1);
		const updated = { ...contact, ...changes, customFields, updatedAt };
		const moved = Object.fromEntries(changed.map((key) => [key, { from: contact[key], to: updated[key] }]));
		const payload = {
			contact: contactEventView(updated),
			...changesOf({ ...moved, ...customChangeEntries(movedCustom) }),
		};
		const event = newEvent('contact.updated', workspaceId, contactActor(contactId), payload, now);
		// Applied only while the row holds what this read: a concurrent write makes it read again, so the
		// event's `from` values are always the ones that were there.
		const unchangedSinceRead = changed.map((key) => sql`${contacts[key]} IS ${contact[key]}`);
		const update = db
			.update(contacts)
			.set({
				...changes,
				...(movedCustom.size > 0 ? { customFields: customFieldsWrite(contacts.customFields, movedCustom) } : {}),
				updatedAt,
			})
			.where(
				and(
					eq(contacts.workspaceId, workspaceId),
					eq(contacts.id, contactId),
					...unchangedSinceRead,
					...customFieldsUnchanged(contacts.customFields, movedCustom),
				),
			);
		const guard = definitionsGuard(workspaceId, 'contact', custom);
		const statements = [...(guard ? [guard] : []), update];
		const committed = await commit(db, { statements, events: [{ event, onlyIf: IF_CHANGED }] }, definitionGone());
		if ((committed.results.at(-1)?.meta.changes ?? 0) > 0) {
			await release(env, committed.events);
			return updated;
		}
	}
	throw new Conflict('The visitor contact kept changing while this was applied; retry.');
}

/** How many times a visitor's details are recomputed when the contact changed between read and write. */
const UPDATE_ATTEMPTS = 8;

/** Two visitors proving the same new identity at the same instant: the loser gets a 409 and retries. */
function uniqueRace(error: unknown): never {
	if (violatesUnique(error, 'contacts.')) {
		throw new Conflict('Another visitor took this e-mail or phone at the same moment; retry.', { cause: error });
	}
	throw error;
}
