/**
 * Who a WhatsApp message is from, and where they came from: the contact found by WhatsApp id, else by phone
 * (the existing upsert by phone, E.164 `+<wa_id>`), else created with the profile name; the origin a
 * Click-to-WhatsApp referral or a widget hand-off gives, as the contact's first and last touch.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { contacts, messagingHandoffs } from '../../../db/schema';
import { commit, release } from '../../../events/commit';
import { Invalid } from '../../../lib/errors';
import { contactActor, SYSTEM } from '../../../model/actor';
import { changesOf, newEvent } from '../../../model/events';
import { handoffRefIn } from '../../../protocol/handoff-ref';
import { upsertContact } from '../../crm/contact-records';
import { contactEventView, normalizePhone } from '../../crm/contacts';

/** The contact of WhatsApp id `waId`: found by it, else by its phone, else created; its WhatsApp id set. */
export async function whatsappContact(
	env: Env,
	db: Database,
	workspaceId: string,
	waId: string,
	profileName: string | null,
	now: number,
): Promise<string> {
	const known = await db
		.select({ id: contacts.id })
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.whatsappId, waId)))
		.get();
	if (known) return known.id;
	// Meta's wa_id is the phone number in digits. A username-only customer has none (WHATSAPP-REF §1.3, from
	// later in 2026): not matched yet, the message is recorded as failed with this reason.
	if (!/^\d{6,15}$/.test(waId)) throw new Invalid(`WhatsApp id ${waId.slice(0, 40)} is not a phone number`);
	const phone = normalizePhone(waId);
	const byPhone = await db
		.select({ id: contacts.id })
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.phone, phone)))
		.get();
	// A contact known by phone keeps its name: only a new one is named after the WhatsApp profile.
	const id =
		byPhone?.id ??
		(
			await upsertContact(
				env,
				db,
				workspaceId,
				{ field: 'phone', value: phone },
				profileFields(profileName),
				SYSTEM,
				now,
			)
		).id;
	// Only while the contact has none: another contact holding this WhatsApp id keeps it (the unique index).
	await db
		.update(contacts)
		.set({ whatsappId: waId })
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id), isNull(contacts.whatsappId)))
		.catch(() => undefined);
	return id;
}

function profileFields(name: string | null) {
	return name ? { name: name.slice(0, 255) } : {};
}

/**
 * Makes `origin` the contact's last touch (and its first, when it has none), with the `contact.updated`
 * event, as a widget visit from a campaign does.
 */
export async function touchContactOrigin(
	env: Env,
	db: Database,
	workspaceId: string,
	contactId: string,
	origin: Record<string, string>,
	now: number,
): Promise<void> {
	if (Object.keys(origin).length === 0) return;
	const contact = await db
		.select()
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, contactId)))
		.get();
	if (!contact) return;
	const json = JSON.stringify(origin);
	const statement = sql`UPDATE contacts SET last_origin = ${json}, first_origin = COALESCE(first_origin, ${json}),
		updated_at = max(updated_at + 1, ${now}) WHERE id = ${contactId} AND workspace_id = ${workspaceId}`;
	const changes = {
		...(contact.firstOrigin ? {} : { firstOrigin: { from: null, to: origin } }),
		lastOrigin: { from: contact.lastOrigin, to: origin },
	};
	const payload = { contact: contactEventView(contact), ...changesOf(changes) };
	const event = newEvent('contact.updated', workspaceId, contactActor(contactId), payload, now);
	const committed = await commit(db, { statements: [statement], events: [event] });
	await release(env, committed.events);
}

/** The widget hand-off a first message's text names (its reference, in this workspace), with its origin. */
export async function handoffOf(db: Database, workspaceId: string, text: string) {
	const ref = handoffRefIn(text);
	if (ref === null) return null;
	const row = await db
		.select({ ref: messagingHandoffs.ref, origin: messagingHandoffs.origin })
		.from(messagingHandoffs)
		.where(
			and(
				eq(messagingHandoffs.workspaceId, workspaceId),
				eq(messagingHandoffs.ref, ref),
				eq(messagingHandoffs.channel, 'whatsapp'),
			),
		)
		.get();
	return row ?? null;
}

/** Records the conversation a hand-off arrived as (the first one only): the reports count arrivals by it. */
export async function recordArrival(db: Database, workspaceId: string, ref: string, conversationId: string) {
	await db
		.update(messagingHandoffs)
		.set({ conversationId })
		.where(
			and(
				eq(messagingHandoffs.workspaceId, workspaceId),
				eq(messagingHandoffs.ref, ref),
				isNull(messagingHandoffs.conversationId),
			),
		);
}
