/**
 * A campaign's mail to one contact, built when it is sent: the campaign's subject and body rendered for the
 * contact as it is now, the workspace's sender, and the signed unsubscribe link (its own purpose, never the
 * continuation's stop link) in the body and in `List-Unsubscribe`. It answers the mail, or why it must not
 * go: the contact opted out, bounced or was deleted since the batch enqueued it.
 */
import { and, eq } from 'drizzle-orm';
import { signMailLink } from '../../../auth/mail-link-token';
import type { Database } from '../../../db/client';
import { campaigns, contacts, workspaces } from '../../../db/schema';
import { composeCampaignMail } from '../../../engines/mail/campaign-mail';
import { TemplateError } from '../../../engines/templates';
import { mailIneligibility, renderCampaignMail } from '../../campaigns/email-sending';
import { workspaceTimeZone } from '../../widget/settings';
import type { BuiltMail } from './build';
import type { DeliveryRow } from './deliveries';
import { emailSettingsRow, NO_SENDER } from './settings';

/** The unsubscribe link's path under the link origin (src/routes/email/links.ts). */
export function unsubscribeUrl(linkOrigin: string, token: string): string {
	return `${linkOrigin}/mail/unsubscribe/${token}`;
}

/** The mail of a claimed `campaign` delivery, or the reason it must not go. */
export async function buildCampaignMail(
	env: Env,
	db: Database,
	row: DeliveryRow,
	now = Date.now(),
): Promise<BuiltMail> {
	const { workspaceId, campaignId, contactId } = row;
	if (campaignId === null || contactId === null) return { skip: 'no campaign or contact to mail' };
	const [settings, campaign, contact, workspace] = await Promise.all([
		emailSettingsRow(db, workspaceId),
		db
			.select()
			.from(campaigns)
			.where(and(eq(campaigns.id, campaignId), eq(campaigns.workspaceId, workspaceId)))
			.get(),
		db
			.select()
			.from(contacts)
			.where(and(eq(contacts.id, contactId), eq(contacts.workspaceId, workspaceId)))
			.get(),
		db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, workspaceId)).get(),
	]);
	if (!settings?.senderAddress) return { skip: NO_SENDER };
	if (settings.linkOrigin === null) return { skip: 'no link origin: save the e-mail settings again' };
	if (!campaign || !workspace) return { skip: 'the campaign no longer exists' };
	if (!contact) return { skip: 'the contact no longer exists' };
	// Checked again at the send: an unsubscribe, a bounce or a new address since the batch enqueued it wins.
	const reason = mailIneligibility(contact);
	if (reason !== null) return { skip: reason };
	if (contact.email !== row.recipient) return { skip: 'the contact’s address changed since' };
	let rendered: { subject: string; body: string };
	try {
		rendered = await renderCampaignMail(campaign, contact, await workspaceTimeZone(db, workspaceId), now);
	} catch (error) {
		if (error instanceof TemplateError) return { skip: `template: ${error.message}` };
		throw error;
	}
	const token = await signMailLink(env, { purpose: 'unsubscribe', workspaceId, contactId });
	const mail = composeCampaignMail({
		from: { address: settings.senderAddress, name: settings.senderName ?? workspace.name },
		to: row.recipient,
		// A reply starts (or joins) the contact's e-mail conversation through the workspace's inbound address.
		replyTo: settings.senderAddress,
		subject: rendered.subject,
		body: rendered.body,
		workspaceName: workspace.name,
		unsubscribeUrl: unsubscribeUrl(settings.linkOrigin, token),
	});
	return { mail: { ...mail, attachments: [] } };
}
