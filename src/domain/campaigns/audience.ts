/**
 * A campaign's audience: a saved contact filter or an explicit list of contacts, checked when the campaign is
 * saved and turned into a condition on `contacts` when sending starts.
 */
import { z } from '@hono/zod-openapi';
import type { Database } from '../../db/client';
import { contacts } from '../../db/schema';
import { assertAllInWorkspace } from '../../db/scoped';
import { keyedRecord } from '../../lib/schema-rules';
import { customFieldKey } from '../../model/custom-fields';
import { tagNameSchema } from '../conversations/conversations';
import { type ContactCriteria, contactsMatching, touchSchema } from '../crm/contact-filters';
/** Contacts an explicit audience may list. */
export const MAX_LISTED_CONTACTS = 5000;

const filterAudience = z
	.strictObject({
		kind: z.literal('filter').openapi({ description: 'A saved contact filter.' }),
		tags: z
			.array(tagNameSchema)
			.max(10)
			.optional()
			.openapi({ description: 'Only contacts carrying every one of these tags.', example: ['vip'] }),
		customFields: keyedRecord(customFieldKey, z.union([z.string(), z.number(), z.boolean()]))
			.optional()
			.openapi({
				description: 'Only contacts whose custom fields hold these values (each read as its definition reads it).',
			}),
		utmSource: z.string().min(1).max(255).optional().openapi({ description: 'Only contacts from this utm_source.' }),
		utmMedium: z.string().min(1).max(255).optional().openapi({ description: 'Only contacts from this utm_medium.' }),
		utmCampaign: z
			.string()
			.min(1)
			.max(255)
			.optional()
			.openapi({ description: 'Only contacts from this utm_campaign.' }),
		hasGclid: z
			.boolean()
			.optional()
			.openapi({ description: 'Only contacts that came (true) or did not come (false) from a search-ad click.' }),
		hasFbclid: z
			.boolean()
			.optional()
			.openapi({ description: 'Only contacts that came (true) or did not come (false) from a social-ad click.' }),
		touch: touchSchema
			.optional()
			.openapi({ description: 'Which origin the origin filters read: `first`, `last` or `any` (the default).' }),
		createdSince: z.iso
			.datetime({ offset: true })
			.optional()
			.openapi({ description: 'Only contacts created at or after this instant.', example: '2026-01-01T00:00:00Z' }),
	})
	.openapi('CampaignFilterAudience', {
		description: 'The contacts the filters select when sending starts (the filters of `GET /v3/contacts`).',
	});

const listAudience = z
	.strictObject({
		kind: z.literal('contacts').openapi({ description: 'An explicit list of contacts.' }),
		contactIds: z
			.array(z.string().min(1).max(64))
			.min(1)
			.max(MAX_LISTED_CONTACTS)
			.refine((ids) => new Set(ids).size === ids.length, 'lists a contact twice')
			.openapi({ description: `These contacts (at most ${MAX_LISTED_CONTACTS}, each once).`, uniqueItems: true }),
	})
	.openapi('CampaignListAudience');

export const campaignAudienceSchema = z
	.discriminatedUnion('kind', [filterAudience, listAudience])
	.openapi('CampaignAudience', {
		description: 'Who it goes to. Contacts that opted out are always left out, whatever the audience says.',
	});
export type CampaignAudience = z.infer<typeof campaignAudienceSchema>;

/** Checks what only D1 can tell of an audience: listed contacts exist, filter values fit their fields. */
export async function checkAudience(db: Database, workspaceId: string, audience: CampaignAudience): Promise<void> {
	if (audience.kind === 'contacts') {
		await assertAllInWorkspace(db, contacts, workspaceId, audience.contactIds, 'audience.contactIds', 'contact');
	} else {
		await audienceCondition(db, workspaceId, audience);
	}
}

/** The contacts a filter audience selects, as a condition on `contacts` (its custom values checked). */
export function audienceCondition(db: Database, workspaceId: string, audience: z.infer<typeof filterAudience>) {
	const { kind: _, createdSince, touch, ...rest } = audience;
	const criteria: ContactCriteria = {
		...rest,
		touch: touch ?? 'any',
		createdSince: createdSince === undefined ? undefined : Date.parse(createdSince),
	};
	return contactsMatching(db, workspaceId, criteria, {
		source: 'json',
		customFieldsAt: ['audience', 'customFields'],
		keyInPath: true,
	});
}
