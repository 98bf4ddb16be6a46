/** The states of a campaign and of each of its recipients: shared by the D1 schema and the API. */

/**
 * draft -> scheduled (a send time set) -> sending (its audience fixed, batches queued) -> sent; a draft, a
 * scheduled or a sending campaign may be cancelled (what is not sent yet stays unsent).
 */
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'sent', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * pending (queued) -> sending (claimed by its batch) -> sent or failed (with its error); skipped when the
 * contact opted out (or was deleted) after the audience was fixed; cancelled when the campaign was cancelled
 * before its turn.
 */
export const RECIPIENT_STATUSES = ['pending', 'sending', 'sent', 'failed', 'skipped', 'cancelled'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/**
 * The channels a campaign can go out on: the widget (a message in the contact's conversation), e-mail (a
 * mail to the contact's address, with a subject and an unsubscribe link) and WhatsApp (an approved template
 * from a connected number, into the contact's WhatsApp conversation).
 */
export const CAMPAIGN_CHANNELS = ['widget', 'email', 'whatsapp'] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];

/** What starts the start key of a conversation a campaign opened: the contact's answer puts it in the queue. */
export const CAMPAIGN_START = 'campaign:';

/** The start key of the conversation `campaignId` opens with a contact: a retried send finds it. */
export function campaignStartKey(campaignId: string, contactId: string): string {
	return `${CAMPAIGN_START}${campaignId}:${contactId}`;
}

/**
 * The key of a campaign's one delivery to a contact in a channel's outbox (a mail, a WhatsApp template): the
 * outbox records one delivery per key, so no retry sends twice.
 */
export function campaignDeliveryKey(campaignId: string, contactId: string): string {
	return `campaign:${campaignId}:${contactId}`;
}
