/**
 * Find Contact and Create Contact, for scenarios (which have no conversation, hence no contact, of their own):
 * a contact found by e-mail, phone or id, kept in a variable; and a contact created, or the one that already
 * has its e-mail or phone updated (an upsert: a redelivered webhook finds what its first delivery made).
 */
import { and, eq } from 'drizzle-orm';
import { contacts } from '../../../../db/schema';
import { NotFound } from '../../../../lib/errors';
import { createContact, getContact, upsertContact } from '../../../crm/contact-records';
import { normalizePhone } from '../../../crm/contacts';
import { type ActionContext, type ActionResult, given, refused, refusedOn } from '../context';
import { checkedContactFields } from './update-contact';

/** The contact by e-mail (any case), phone (as written, with its country code) or id: its record, or none. */
export function performFindContact(
	ctx: ActionContext,
	action: { by: 'email' | 'phone' | 'id'; value: string },
): Promise<ActionResult> {
	return refusedOn(async () => {
		const value = given(action.value);
		if (value === undefined) return refused('value: rendered empty');
		let id: string | undefined = value;
		if (action.by !== 'id') {
			const column = contacts[action.by];
			const key = action.by === 'email' ? value.toLowerCase() : normalizePhone(value.replace(/[\s().-]/g, ''));
			const row = await ctx.db
				.select({ id: contacts.id })
				.from(contacts)
				.where(and(eq(contacts.workspaceId, ctx.workspaceId), eq(column, key)))
				.get();
			id = row?.id;
		}
		if (id === undefined) return { ok: true, notFound: true };
		try {
			return { ok: true, data: await getContact(ctx.db, ctx.workspaceId, id) };
		} catch (error) {
			if (error instanceof NotFound) return { ok: true, notFound: true };
			throw error;
		}
	});
}

/**
 * A contact with these fields, checked as `POST /v3/contacts` checks them: with an e-mail (else a phone), the
 * contact that has it is updated instead of a second one made; without either, a new contact.
 */
export function performCreateContact(
	ctx: ActionContext,
	action: { name?: string; email?: string; phone?: string; custom_fields?: Record<string, string> },
): Promise<ActionResult> {
	return refusedOn(async () => {
		const checked = checkedContactFields(action);
		if (!checked?.name && !checked?.email && !checked?.phone)
			return refused('name, email and phone all rendered empty');
		const key =
			typeof checked.email === 'string'
				? ({ field: 'email', value: checked.email } as const)
				: typeof checked.phone === 'string'
					? ({ field: 'phone', value: checked.phone } as const)
					: null;
		const id = key
			? (await upsertContact(ctx.env, ctx.db, ctx.workspaceId, key, checked, ctx.actor, ctx.now)).id
			: await createContact(ctx.env, ctx.db, ctx.workspaceId, checked, ctx.actor, ctx.now);
		return { ok: true, data: await getContact(ctx.db, ctx.workspaceId, id) };
	});
}
