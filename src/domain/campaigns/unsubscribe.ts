/**
 * The unsubscribe link of campaign mails, opened by a customer with no credential but the link's signed
 * token (purpose `unsubscribe`, scoped to one workspace and one contact). Opening it shows what it does;
 * posting it (the page's button, or a mail client's RFC 8058 one-click POST) opts the contact out of
 * campaigns, as an opt-out through the API does: `opted_out_at`, its source, a `contact.updated` event.
 */
import { and, eq } from 'drizzle-orm';
import { verifyMailLink } from '../../auth/mail-link-token';
import type { Database } from '../../db/client';
import { contacts, workspaces } from '../../db/schema';
import { routeRequest } from '../../db/sessions';
import { NotFound } from '../../lib/errors';
import { contactActor } from '../../model/actor';
import { updateContact } from '../crm/contact-records';

/** What `opted_out_source` says of a contact that unsubscribed through the link. */
export const UNSUBSCRIBE_SOURCE = 'unsubscribe link';

const INVALID = 'This link is not valid (or no longer is).';

interface Target {
	workspaceId: string;
	contactId: string;
	workspaceName: string;
	/** Whether the contact has opted out already (the page then says so). */
	optedOut: boolean;
}

/** Who the link unsubscribes; a 404 for a forged or altered token, or a contact that is gone. */
export async function unsubscribeTarget(env: Env, db: Database, token: string): Promise<Target> {
	const link = await verifyMailLink(env, token);
	if (link?.purpose !== 'unsubscribe') throw new NotFound(INVALID);
	// The signed token names its workspace: the request reads that workspace's shard (src/db/shards.ts).
	routeRequest(db, link.workspaceId);
	const row = await db
		.select({ name: workspaces.name, optedOutAt: contacts.optedOutAt })
		.from(contacts)
		.innerJoin(workspaces, eq(workspaces.id, contacts.workspaceId))
		.where(and(eq(contacts.id, link.contactId), eq(contacts.workspaceId, link.workspaceId)))
		.get();
	if (!row) throw new NotFound(INVALID);
	return {
		workspaceId: link.workspaceId,
		contactId: link.contactId,
		workspaceName: row.name,
		optedOut: row.optedOutAt !== null,
	};
}

/** Opts the link's contact out of campaigns; once is enough (a second time keeps the first time and source). */
export async function unsubscribe(env: Env, db: Database, token: string, now = Date.now()): Promise<Target> {
	const target = await unsubscribeTarget(env, db, token);
	if (!target.optedOut) {
		await updateContact(
			env,
			db,
			target.workspaceId,
			target.contactId,
			{ optedOut: true, optedOutSource: UNSUBSCRIBE_SOURCE },
			contactActor(target.contactId),
			undefined,
			now,
		);
	}
	return { ...target, optedOut: true };
}
