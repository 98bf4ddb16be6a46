/**
 * What the links in mail open, for a customer with no credential but the link's signed token: the stop link
 * of continuation mails, and a file too large to attach.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { type MailLink, verifyMailLink } from '../../../auth/mail-link-token';
import type { Database } from '../../../db/client';
import { contacts, workspaces } from '../../../db/schema';
import { routeRequest } from '../../../db/sessions';
import { NotFound } from '../../../lib/errors';
import { fileDownload } from '../../conversations/files';

/** The link a token names, or a 404: a forged, altered or expired token opens nothing. */
async function linkOf<P extends MailLink['purpose']>(
	env: Env,
	token: string,
	purpose: P,
): Promise<Extract<MailLink, { purpose: P }>> {
	const link = await verifyMailLink(env, token);
	if (link?.purpose !== purpose) throw new NotFound('This link is not valid (or no longer is).');
	return link as Extract<MailLink, { purpose: P }>;
}

/** Who a stop link is for, to name on its confirmation page: the workspace's name. */
export async function stopLinkTarget(env: Env, db: Database, token: string): Promise<{ workspaceName: string }> {
	const link = await linkOf(env, token, 'stop');
	// The signed token names its workspace: the request reads that workspace's shard (src/db/shards.ts).
	routeRequest(db, link.workspaceId);
	const row = await db
		.select({ name: workspaces.name })
		.from(contacts)
		.innerJoin(workspaces, eq(workspaces.id, contacts.workspaceId))
		.where(and(eq(contacts.id, link.contactId), eq(contacts.workspaceId, link.workspaceId)))
		.get();
	if (!row) throw new NotFound('This link is not valid (or no longer is).');
	return { workspaceName: row.name };
}

/**
 * Stops continuation mails for the link's contact (RFC 8058's one-click POST lands here too). Stopping twice
 * keeps the first time.
 */
export async function stopContinuations(
	env: Env,
	db: Database,
	token: string,
	now = Date.now(),
): Promise<{ workspaceName: string }> {
	const target = await stopLinkTarget(env, db, token);
	const link = await linkOf(env, token, 'stop');
	await db
		.update(contacts)
		.set({ continuationOptOutAt: now })
		.where(
			and(
				eq(contacts.id, link.contactId),
				eq(contacts.workspaceId, link.workspaceId),
				isNull(contacts.continuationOptOutAt),
			),
		);
	return target;
}

/** The file a file link names, as a download. */
export async function linkedFile(env: Env, token: string): Promise<Response> {
	const link = await linkOf(env, token, 'file');
	return fileDownload(env, link.workspaceId, link.fileId);
}
