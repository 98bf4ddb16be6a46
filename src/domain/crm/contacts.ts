import { z } from '@hono/zod-openapi';
import type { contacts } from '../../db/schema';
import { iso, isoOrNull } from '../../lib/ids';
import { emailAddress } from '../../model/email-address';
import { phoneNumber } from '../widget/settings';

export const originSchema = z
	.object({
		utmSource: z.string().nullable().openapi({ description: 'utm_source of the landing URL.' }),
		utmMedium: z.string().nullable().openapi({ description: 'utm_medium of the landing URL.' }),
		utmCampaign: z.string().nullable().openapi({ description: 'utm_campaign of the landing URL.' }),
		utmContent: z.string().nullable().openapi({ description: 'utm_content of the landing URL.' }),
		utmTerm: z.string().nullable().openapi({ description: 'utm_term of the landing URL.' }),
		gclid: z.string().nullable().openapi({ description: 'The Google Ads click id (a search-ad click).' }),
		fbclid: z.string().nullable().openapi({ description: 'The Meta click id (a social-ad click).' }),
		landingUrl: z.string().nullable().openapi({ description: 'The first page of the visit.' }),
		referrer: z.string().nullable().openapi({ description: 'The page that linked to it.' }),
		ctwaClid: z
			.string()
			.nullable()
			.openapi({ description: 'The Click-to-WhatsApp ad click id (Meta’s `ctwa_clid`): a social-ad click.' }),
		adReferral: z
			.object({
				sourceUrl: z.string().optional().openapi({ description: 'The ad or post the customer tapped.' }),
				sourceId: z.string().optional().openapi({ description: 'Its id at Meta.' }),
				sourceType: z.string().optional().openapi({ description: '`ad` or `post`.' }),
				headline: z.string().optional().openapi({ description: 'The ad’s headline.' }),
				body: z.string().optional().openapi({ description: 'The ad’s text.' }),
				mediaType: z.string().optional().openapi({ description: '`image` or `video`.' }),
				ctwaClid: z.string().optional().openapi({ description: 'The click id, as above.' }),
			})
			.nullable()
			.openapi({ description: 'The Click-to-WhatsApp ad the conversation came from; null for any other start.' }),
	})
	.openapi('Origin');

export const contactSchema = z
	.object({
		id: z.string().openapi({ description: 'The contact id.', example: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().nullable().openapi({ description: 'Full name; null when unknown.' }),
		email: z.string().nullable().openapi({ description: 'E-mail address; null when unknown.' }),
		phone: z.string().nullable().openapi({ description: 'Phone number with the country code; null when unknown.' }),
		customFields: z
			.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
			.openapi({ description: 'Values of the workspace custom fields and custom data, by name.' }),
		firstOrigin: z
			.record(z.string(), z.string())
			.nullable()
			.openapi({ description: 'The campaign origin of the first visit.' }),
		lastOrigin: z
			.record(z.string(), z.string())
			.nullable()
			.openapi({ description: 'The campaign origin of the latest visit.' }),
		externalId: z.string().nullable().openapi({ description: "The site's own user id, from a verified identity." }),
		verified: z.boolean().openapi({ description: 'Whether a signed identity (JWT) proved who this contact is.' }),
		claimedEmail: z.string().nullable().openapi({
			description: 'An e-mail the visitor typed without proof while another contact holds it. Never used to match.',
		}),
		claimedPhone: z.string().nullable().openapi({
			description: 'A phone the visitor typed without proof while another contact holds it. Never used to match.',
		}),
		optedOut: z.boolean().openapi({ description: 'Whether it opted out of campaigns: campaigns never send to it.' }),
		optedOutAt: z.string().nullable().openapi({ description: 'When it opted out (ISO 8601); null while it has not.' }),
		optedOutSource: z
			.string()
			.nullable()
			.openapi({ description: 'How it opted out (`api` unless the writer said); null while it has not.' }),
		createdAt: z.string().openapi({ description: 'When the contact was created (ISO 8601).' }),
		updatedAt: z.string().openapi({ description: 'When the contact last changed (ISO 8601).' }),
	})
	.openapi('Contact');

/** How an integrator names a contact: by id, or by e-mail or phone (created when unknown). */
export const contactReferenceSchema = z
	.strictObject({
		id: z.string().min(1).max(64).optional().openapi({ description: 'An existing contact id.' }),
		email: emailAddress().optional().openapi({ description: 'Find the contact by e-mail, or create it.' }),
		phone: phoneNumber
			.optional()
			.openapi({ description: 'Find the contact by phone (with the country code), or create it.' }),
		name: z.string().min(1).max(200).optional().openapi({ description: 'A name for a contact created now.' }),
	})
	.refine((c) => c.id !== undefined || c.email !== undefined || c.phone !== undefined, {
		message: 'give the contact an id, an email or a phone',
	})
	// The refinement above is invisible to the generator: the document states it for clients that validate.
	.openapi('ContactReference', {
		description: 'A contact by id, or by e-mail or phone (created when unknown); at least one of the three.',
		// Each branch names its property's type: a bare `{ required }` makes openapi-typescript type it `unknown`.
		anyOf: (['id', 'email', 'phone'] as const).map((field) => ({
			type: 'object' as const,
			required: [field],
			properties: { [field]: { type: 'string' as const, description: `Given: the contact is found by ${field}.` } },
		})),
	});

export type ContactReference = z.infer<typeof contactReferenceSchema>;

type ContactRow = typeof contacts.$inferSelect;

export function contactView(row: ContactRow): z.infer<typeof contactSchema> {
	return {
		id: row.id,
		name: row.name,
		email: row.email,
		phone: row.phone,
		customFields: row.customFields,
		firstOrigin: row.firstOrigin,
		lastOrigin: row.lastOrigin,
		externalId: row.externalId,
		verified: row.verifiedAt !== null,
		claimedEmail: row.claimedEmail,
		claimedPhone: row.claimedPhone,
		optedOut: row.optedOutAt !== null,
		optedOutAt: isoOrNull(row.optedOutAt),
		optedOutSource: row.optedOutSource,
		createdAt: iso(row.createdAt),
		updatedAt: iso(row.updatedAt),
	};
}

/** The contact as domain events carry it. */
export function contactEventView(row: {
	id: string;
	name: string | null;
	email: string | null;
	phone: string | null;
	verifiedAt?: number | null;
}) {
	return {
		id: row.id,
		name: row.name,
		email: row.email,
		phone: row.phone,
		verified: (row.verifiedAt ?? null) !== null,
	};
}

/** Phone numbers are stored as `+` and digits so one person is one contact however it was typed. */
export function normalizePhone(phone: string): string {
	return `+${phone.replace(/^\+/, '')}`;
}
