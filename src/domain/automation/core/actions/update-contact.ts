/**
 * Update contact: sets the conversation contact's name, e-mail, phone or custom fields from templates. Each
 * value is checked as the API checks it (the same schema: an e-mail, a phone with its country code, custom
 * values of their field's type); a field rendered empty is left as it is. A refused value, or an e-mail or
 * phone another contact has, takes the step's error path.
 */
import type { UpdateContactAction } from '../../../../engines/actions/update-contact';
import { Invalid } from '../../../../lib/errors';
import { type ContactFields, contactChangesSchema, updateContact } from '../../../crm/contact-records';
import { type ActionContext, type ActionResult, given, givenValues, needs, refusedOn } from '../context';

/**
 * The contact fields a step's templates rendered (a field rendered empty left out), checked as the API checks
 * them (an e-mail, a phone with its country code, custom values of their type); null when none was given.
 */
export function checkedContactFields(action: {
	name?: string;
	email?: string;
	phone?: string;
	custom_fields?: Record<string, string>;
}): ContactFields | null {
	const fields = {
		...(given(action.name) === undefined ? {} : { name: given(action.name) }),
		...(given(action.email) === undefined ? {} : { email: given(action.email) }),
		...(given(action.phone) === undefined ? {} : { phone: given(action.phone)?.replace(/[\s().-]/g, '') }),
		...(action.custom_fields ? { customFields: givenValues(action.custom_fields) } : {}),
	};
	if (Object.keys(fields).length === 0) return null;
	const parsed = contactChangesSchema.safeParse(fields);
	if (!parsed.success) throw Invalid.fromIssues(parsed.error.issues);
	return parsed.data;
}

export function performUpdateContact(ctx: ActionContext, action: UpdateContactAction): Promise<ActionResult> {
	return refusedOn(async () => {
		const contactId = needs(ctx, 'contactId');
		const fields = checkedContactFields(action);
		if (fields === null) return { ok: true, data: 'nothing to change' };
		await updateContact(ctx.env, ctx.db, ctx.workspaceId, contactId, fields, ctx.actor, undefined, ctx.now);
		return { ok: true, data: fields };
	});
}
