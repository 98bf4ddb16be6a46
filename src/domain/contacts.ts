import { z } from '@hono/zod-openapi';
import type { contacts } from '../db/schema';
import { iso } from '../lib/ids';
import { phoneNumber } from './widget-settings';

export const originSchema = z
	.object({
		utmSource: z.string().nullable(),
		utmMedium: z.string().nullable(),
		utmCampaign: z.string().nullable(),
		utmContent: z.string().nullable(),
		utmTerm: z.string().nullable(),
		gclid: z.string().nullable(),
		fbclid: z.string().nullable(),
		landingUrl: z.string().nullable(),
		referrer: z.string().nullable(),
	})
	.openapi('Origin');

export const contactSchema = z
	.object({
		id: z.string().openapi({ example: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		name: z.string().nullable(),
		email: z.string().nullable(),
		phone: z.string().nullable(),
		customFields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
		firstOrigin: z.record(z.string(), z.string()).nullable(),
		lastOrigin: z.record(z.string(), z.string()).nullable(),
		externalId: z.string().nullable().openapi({ description: "The site's own user id, from a verified identity." }),
		verified: z.boolean().openapi({ description: 'Whether a signed identity (JWT) proved who this contact is.' }),
		claimedEmail: z.string().nullable().openapi({
			description: 'An e-mail the visitor typed without proof while another contact holds it. Never used to match.',
		}),
		claimedPhone: z.string().nullable(),
		createdAt: z.string(),
		updatedAt: z.string(),
	})
	.openapi('Contact');

/** How an integrator names a contact: by id, or by e-mail or phone (created when unknown). */
export const contactReferenceSchema = z
	.strictObject({
		id: z.string().min(1).max(64).optional(),
		email: z.email().max(254).optional(),
		phone: phoneNumber.optional(),
		name: z.string().min(1).max(200).optional(),
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
			properties: { [field]: { type: 'string' as const } },
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
