/**
 * A campaign on channel `email`. Its recipients are fixed and claimed like any campaign's (sending.ts); what
 * differs is the last step: a contact with no address, or one that bounced, is skipped with the reason, and
 * the others get one mail each through the outbox (`enqueueMail`) under the key `campaign:<campaign>:
 * <contact>`. The outbox records one delivery per key, so a batch redelivered, or retried after its claim
 * lapsed, finds the delivery already there and mails no one twice; the mail itself is built when it is sent
 * (src/domain/channels/email/build-campaign.ts).
 */
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { contacts } from '../../db/schema';
import { renderTemplate, TemplateError } from '../../engines/templates';
import { Conflict, Invalid } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { campaignDeliveryKey } from '../../model/campaigns';
import { MAX_OPERATOR_TEXT } from '../../model/messages';
import { enqueueMail } from '../channels/email/outbox';
import { emailSettingsRow } from '../channels/email/settings';
import type { CampaignRow } from './campaigns';

/** The longest rendered subject kept before it is made one header line (which cuts it to 200 characters). */
const MAX_RENDERED_SUBJECT = 1000;

export const NO_ADDRESS = 'the contact has no e-mail address';
export const ADDRESS_FAILING = 'the address is failing';

type ContactRow = typeof contacts.$inferSelect;

/** The outbox key of a campaign's mail to a contact: one mail per (campaign, contact), whatever is retried. */
export function campaignMailKey(campaignId: string, contactId: string): string {
	return campaignDeliveryKey(campaignId, contactId);
}

/** `campaignMailKey` in SQL, of a column holding the contact: a join on it finds the delivery the send enqueued. */
export function campaignMailKeySql(campaignId: string, contactId: SQLWrapper): SQL {
	return sql`${campaignMailKey(campaignId, '')} || ${contactId}`;
}

/** Why a contact gets no campaign mail (no address, a failing one, opted out), or null when it may. */
export function mailIneligibility(
	contact: Pick<ContactRow, 'email' | 'emailFailingAt' | 'emailFailure' | 'optedOutAt'>,
): string | null {
	if (contact.optedOutAt !== null) return 'the contact opted out';
	if (!contact.email) return NO_ADDRESS;
	if (contact.emailFailingAt !== null) {
		return contact.emailFailure ? `${ADDRESS_FAILING}: ${contact.emailFailure}` : ADDRESS_FAILING;
	}
	return null;
}

/**
 * A recipient's first state and reason as the start writes it, in SQL over `contacts`: on e-mail, a contact
 * with no address or a failing one is skipped at once (it takes nothing of the workspace's sending rate);
 * every other is pending.
 */
export function startingState(channel: CampaignRow['channel']): { status: SQL; error: SQL } {
	if (channel !== 'email') return { status: sql`'pending'`, error: sql`NULL` };
	const noAddress = sql`(${contacts.email} IS NULL OR ${contacts.email} = '')`;
	return {
		status: sql`CASE WHEN ${noAddress} OR ${contacts.emailFailingAt} IS NOT NULL THEN 'skipped' ELSE 'pending' END`,
		error: sql`CASE WHEN ${noAddress} THEN ${NO_ADDRESS}
			WHEN ${contacts.emailFailingAt} IS NOT NULL THEN ${ADDRESS_FAILING} || COALESCE(': ' || ${contacts.emailFailure}, '')
			ELSE NULL END`,
	};
}

/** A 409 when an e-mail campaign is sent or scheduled while the workspace has no sender: nothing could go out. */
export async function assertCanMail(db: Database, campaign: CampaignRow): Promise<void> {
	if (campaign.channel !== 'email') return;
	const settings = await emailSettingsRow(db, campaign.workspaceId);
	if (!settings?.senderAddress) {
		throw new Conflict('No sender is set: set one in the e-mail settings before sending an e-mail campaign.');
	}
}

/**
 * The subject (one line, possibly empty after cleaning: the mail then uses the workspace's name) and the body
 * of a campaign's mail for one contact; a TemplateError when either fails or the body renders empty.
 */
export async function renderCampaignMail(
	campaign: Pick<CampaignRow, 'template' | 'subject'>,
	contact: ContactRow,
	timeZone: string,
	now: number,
): Promise<{ subject: string; body: string }> {
	const input = { contact, timeZone, now };
	let subject: string;
	try {
		subject = (await renderTemplate(campaign.subject ?? '', input, MAX_RENDERED_SUBJECT)).trim();
	} catch (error) {
		if (error instanceof TemplateError) throw new TemplateError(`subject: ${error.message}`, { cause: error });
		throw error;
	}
	const body = (await renderTemplate(campaign.template, input, MAX_OPERATOR_TEXT)).trim();
	if (body === '') throw new TemplateError('it renders empty for this contact');
	return { subject, body };
}

/** What became of one recipient of an e-mail campaign. */
export type MailOutcome = { status: 'sent' } | { status: 'failed' | 'skipped'; error: string };

/**
 * Mails a campaign to one claimed contact: skipped when it may not get it, failed when its templates do not
 * render for it, else its delivery enqueued (once per campaign and contact). An infrastructure error is thrown:
 * the claim lapses and the batch's retry enqueues again, which finds the delivery already recorded.
 */
export async function mailCampaignTo(
	env: Env,
	db: Database,
	campaign: CampaignRow,
	contact: ContactRow,
	timeZone: string,
	now: number,
): Promise<MailOutcome> {
	const skip = mailIneligibility(contact);
	if (skip !== null || !contact.email) return { status: 'skipped', error: skip ?? NO_ADDRESS };
	try {
		// Rendered here only to know it renders: the mail is rendered again when it is built and sent.
		await renderCampaignMail(campaign, contact, timeZone, now);
	} catch (error) {
		if (error instanceof TemplateError) return { status: 'failed', error: `template: ${error.message}` };
		throw error;
	}
	await enqueueMail(
		env,
		db,
		{
			workspaceId: campaign.workspaceId,
			kind: 'campaign',
			dedupeKey: campaignMailKey(campaign.id, contact.id),
			recipient: contact.email,
			campaignId: campaign.id,
			contactId: contact.id,
		},
		now,
	);
	return { status: 'sent' };
}

/**
 * An e-mail campaign's test send: one mail to `contact`, rendered and built as a real send's, through the same
 * outbox (so it shows in the sent mail), and never a recipient (counts and reports leave it out). A 409 when no
 * sender is set or the contact cannot be mailed; a 422 when the subject or body does not render for it.
 */
export async function testCampaignMail(
	env: Env,
	db: Database,
	campaign: CampaignRow,
	contact: ContactRow,
	timeZone: string,
	now: number,
): Promise<{ deliveryId: string; subject: string; text: string }> {
	await assertCanMail(db, campaign);
	const refused = mailIneligibility(contact);
	if (refused !== null || !contact.email) {
		throw new Conflict(`Contact ${contact.id} cannot be mailed: ${refused ?? NO_ADDRESS}.`);
	}
	let rendered: { subject: string; body: string };
	try {
		rendered = await renderCampaignMail(campaign, contact, timeZone, now);
	} catch (error) {
		if (error instanceof TemplateError) throw new Invalid(error.message, { field: ['template'], cause: error });
		throw error;
	}
	const { id } = await enqueueMail(
		env,
		db,
		{
			workspaceId: campaign.workspaceId,
			kind: 'campaign',
			// Every test is a mail of its own.
			dedupeKey: `campaign-test:${campaign.id}:${contact.id}:${newId('test', now)}`,
			recipient: contact.email,
			campaignId: campaign.id,
			contactId: contact.id,
		},
		now,
	);
	return { deliveryId: id, subject: rendered.subject, text: rendered.body };
}
