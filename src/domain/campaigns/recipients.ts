/**
 * A campaign's recipients as the API lists them: each contact (as it is now, to show it by), its state in the
 * campaign and, on e-mail, where its mail stands. A recipient is `sent` once its mail is enqueued; what the mail consumer made of it after
 * (sent, refused with the provider's reason, skipped at the send) is on its delivery, read in the same
 * statement by the delivery's own key (`campaignMailKey`), so a page costs one read whatever its size. A
 * WhatsApp campaign's template delivery is read the same way, under the same key, as `whatsapp`.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { campaignRecipients, contacts, mailDeliveries, whatsappDeliveries } from '../../db/schema';
import { pageOf } from '../../lib/cursor';
import { isoOrNull } from '../../lib/ids';
import { RECIPIENT_STATUSES } from '../../model/campaigns';
import { MAIL_DELIVERY_STATUSES, type MailDeliveryStatus } from '../../model/email';
import { WHATSAPP_DELIVERY_STATUSES, type WhatsappDeliveryStatus } from '../../model/whatsapp';
import { shownMailError } from '../channels/email/delivery-views';
import { type CampaignRow, campaignRow } from './campaigns';
import { campaignMailKeySql } from './email-sending';

export const recipientMailSchema = z
	.object({
		deliveryId: z.string().openapi({ description: 'The mail in `GET /v3/email/deliveries`.' }),
		status: z.enum(MAIL_DELIVERY_STATUSES).openapi({
			description:
				'`queued`, `sending`, `sent` (the provider took it), `failed` (the provider refused it or every try failed) or `skipped` (Parley did not send it, e.g. the address bounced since).',
		}),
		error: z
			.string()
			.nullable()
			.openapi({ description: 'Failed: the provider’s reason; skipped: Parley’s. Null otherwise.' }),
		sentAt: z.string().nullable().openapi({ description: 'When the provider took it (ISO 8601); null until then.' }),
	})
	.openapi('CampaignRecipientMail', {
		description:
			'An e-mail campaign: where the recipient’s mail stands. Null for a widget campaign, and for a recipient no mail was enqueued for (skipped, failed to render, not yet sent).',
	});

export const recipientWhatsappSchema = z
	.object({
		deliveryId: z.string().openapi({ description: 'The template’s WhatsApp delivery.' }),
		status: z.enum(WHATSAPP_DELIVERY_STATUSES).openapi({
			description:
				'`queued`, `sending`, `sent` (Meta took it), `delivered`, `read`, `failed` (Meta refused it, or every try failed) or `skipped`.',
		}),
		error: z
			.string()
			.nullable()
			.openapi({ description: 'Failed: Meta’s code and title; skipped: Parley’s reason. Null otherwise.' }),
		sentAt: z.string().nullable().openapi({ description: 'When Meta took it (ISO 8601); null until then.' }),
	})
	.openapi('CampaignRecipientWhatsapp', {
		description:
			'A WhatsApp campaign: where the recipient’s template stands. Null on other channels, and for a recipient no template was enqueued for.',
	});

export const recipientContactSchema = z
	.object({
		name: z.string().nullable().openapi({ description: 'Its name now.' }),
		email: z.string().nullable().openapi({ description: 'Its e-mail address now.' }),
		phone: z.string().nullable().openapi({ description: 'Its phone now.' }),
	})
	.openapi('CampaignRecipientContact', {
		description: 'Who the contact is now, to show it by; null when it was deleted (or merged away) since.',
	});

export const recipientSchema = z
	.object({
		contactId: z.string().openapi({ description: 'The contact.' }),
		contact: recipientContactSchema.nullable(),
		status: z.enum(RECIPIENT_STATUSES).openapi({
			description:
				'`pending` → `sending` → `sent` or `failed`; `skipped` (opted out or deleted since; on e-mail: no address or a failing one), `cancelled`. On e-mail, `sent` means its mail was enqueued: `mail` says what became of it.',
		}),
		error: z.string().nullable().openapi({ description: 'Why it failed or was skipped.' }),
		conversationId: z.string().nullable().openapi({ description: 'The conversation the message went to.' }),
		messageId: z.string().nullable().openapi({ description: 'The message.' }),
		sentAt: z.string().nullable().openapi({ description: 'When it was sent (ISO 8601); on e-mail, enqueued.' }),
		repliedAt: z.string().nullable().openapi({ description: 'When the contact first wrote back (within 7 days).' }),
		mail: recipientMailSchema.nullable(),
		whatsapp: recipientWhatsappSchema.nullable(),
	})
	.openapi('CampaignRecipient');
export type CampaignRecipient = z.infer<typeof recipientSchema>;

export const recipientFiltersSchema = z.strictObject({
	status: z.enum(RECIPIENT_STATUSES).optional().openapi({ description: 'Only recipients in this state.' }),
	replied: z
		.enum(['true', 'false'])
		.transform((v) => v === 'true')
		.optional()
		.openapi({ description: 'Only recipients who replied (`true`) or did not (`false`).' }),
	mailStatus: z.enum(MAIL_DELIVERY_STATUSES).optional().openapi({
		description: 'An e-mail campaign: only recipients whose mail is in this state (a widget campaign: none).',
		example: 'failed',
	}),
});
export const recipientCursor = z.object({ id: z.string() });

/**
 * The statement of a page of `campaign`'s recipients, by contact id, each with its contact as it is now (by
 * its primary key) and its campaign mail if it has one, found through the deliveries' unique `(workspace_id, dedupe_key)` index: one probe per recipient, never
 * a scan (a test send's mail has a key of its own, so it is never a recipient's). A widget campaign enqueues
 * no mail, so its probes find none.
 */
export function recipientRows(
	db: Database,
	campaign: Pick<CampaignRow, 'id' | 'workspaceId'> & { channel?: CampaignRow['channel'] },
	filters: z.infer<typeof recipientFiltersSchema>,
	after: { id: string } | null,
	limit: number,
) {
	const r = campaignRecipients;
	// One delivery table per page, the campaign's channel's: a widget campaign's probes find no mail.
	const m = campaign.channel === 'whatsapp' ? whatsappDeliveries : mailDeliveries;
	return db
		.select({
			recipient: r,
			contactFound: contacts.id,
			name: contacts.name,
			email: contacts.email,
			phone: contacts.phone,
			mailId: m.id,
			mailStatus: m.status,
			mailError: m.error,
			mailSentAt: m.sentAt,
		})
		.from(r)
		.leftJoin(contacts, and(eq(contacts.id, r.contactId), eq(contacts.workspaceId, campaign.workspaceId)))
		.leftJoin(
			m,
			and(eq(m.workspaceId, campaign.workspaceId), eq(m.dedupeKey, campaignMailKeySql(campaign.id, r.contactId))),
		)

		.where(
			and(
				eq(r.campaignId, campaign.id),
				filters.status === undefined ? undefined : eq(r.status, filters.status),
				filters.replied === undefined
					? undefined
					: filters.replied
						? sql`${r.repliedAt} IS NOT NULL`
						: isNull(r.repliedAt),
				filters.mailStatus === undefined ? undefined : eq(m.status, filters.mailStatus),
				after === null ? undefined : gt(r.contactId, after.id),
			),
		)
		.orderBy(asc(r.contactId))
		.limit(limit + 1);
}

/** A page of a campaign's recipients, by contact id: one statement after the campaign's, whatever its size. */
export async function listRecipients(
	db: Database,
	workspaceId: string,
	id: string,
	filters: z.infer<typeof recipientFiltersSchema>,
	after: { id: string } | null,
	limit: number,
) {
	const campaign = await campaignRow(db, workspaceId, id);
	const rows = await recipientRows(db, campaign, filters, after, limit);
	const onEmail = campaign.channel === 'email';
	const onWhatsapp = campaign.channel === 'whatsapp';
	return pageOf(
		rows,
		limit,
		({
			recipient: x,
			contactFound,
			name,
			email,
			phone,
			mailId,
			mailStatus,
			mailError,
			mailSentAt,
		}): CampaignRecipient => ({
			contactId: x.contactId,
			contact: contactFound === null ? null : { name, email, phone },
			status: x.status,
			error: x.error,
			conversationId: x.conversationId,
			messageId: x.messageId,
			sentAt: isoOrNull(x.sentAt),
			repliedAt: isoOrNull(x.repliedAt),
			mail:
				!onEmail || mailId === null || mailStatus === null
					? null
					: {
							deliveryId: mailId,
							status: mailStatus as MailDeliveryStatus,
							error: shownMailError({ status: mailStatus as MailDeliveryStatus, error: mailError }),
							sentAt: isoOrNull(mailSentAt),
						},
			whatsapp:
				!onWhatsapp || mailId === null || mailStatus === null
					? null
					: {
							deliveryId: mailId,
							status: mailStatus as WhatsappDeliveryStatus,
							// A queued delivery's error is that of a try to be made again: not the outcome.
							error: mailStatus === 'failed' || mailStatus === 'skipped' ? mailError : null,
							sentAt: isoOrNull(mailSentAt),
						},
		}),
		({ recipient: x }) => ({ id: x.contactId }),
	);
}
