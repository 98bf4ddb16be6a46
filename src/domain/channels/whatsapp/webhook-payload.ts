/**
 * Meta's webhook envelope as Parley reads it (WHATSAPP-REF §1.3–3): `entry[].changes[].value` with the
 * number's metadata, the senders' profiles, messages and statuses. Only what Parley uses is checked; every
 * object keeps the fields it does not know (Meta adds some with each version), and a message of a type
 * Parley has never seen still parses, to be stored as unsupported rather than dropped.
 */
import { z } from '@hono/zod-openapi';

const text = z.string().max(100_000);
const mediaObject = z.looseObject({
	id: z.string().min(1).max(256),
	mime_type: z.string().max(255).optional(),
	sha256: z.string().max(256).optional(),
	caption: text.optional(),
	filename: z.string().max(1024).optional(),
	voice: z.boolean().optional(),
	animated: z.boolean().optional(),
});

const referralSchema = z.looseObject({
	source_url: z.string().max(2048).optional(),
	source_id: z.string().max(256).optional(),
	source_type: z.string().max(64).optional(),
	headline: z.string().max(1024).optional(),
	body: z.string().max(4096).optional(),
	media_type: z.string().max(64).optional(),
	ctwa_clid: z.string().max(1024).optional(),
});

/** One message of `value.messages[]`: the common fields, and the type's own object when Parley reads it. */
export const webhookMessageSchema = z.looseObject({
	from: z.string().max(256),
	id: z.string().min(1).max(512),
	timestamp: z.string().regex(/^\d{1,12}$/),
	type: z.string().min(1).max(64),
	context: z.looseObject({ from: z.string().optional(), id: z.string().optional() }).optional(),
	referral: referralSchema.optional(),
	text: z.looseObject({ body: text }).optional(),
	image: mediaObject.optional(),
	video: mediaObject.optional(),
	audio: mediaObject.optional(),
	document: mediaObject.optional(),
	sticker: mediaObject.optional(),
	location: z
		.looseObject({
			latitude: z.number(),
			longitude: z.number(),
			name: z.string().max(1024).optional(),
			address: z.string().max(1024).optional(),
			url: z.string().max(2048).optional(),
		})
		.optional(),
	contacts: z
		.array(
			z.looseObject({
				name: z.looseObject({ formatted_name: z.string().max(1024).optional() }).optional(),
				phones: z
					.array(z.looseObject({ phone: z.string().max(64).optional() }))
					.max(50)
					.optional(),
				emails: z
					.array(z.looseObject({ email: z.string().max(320).optional() }))
					.max(50)
					.optional(),
			}),
		)
		.max(50)
		.optional(),
	reaction: z
		.looseObject({ message_id: z.string().max(512).optional(), emoji: z.string().max(64).optional() })
		.optional(),
	interactive: z
		.looseObject({
			type: z.string().max(64),
			button_reply: z.looseObject({ id: z.string().max(1024), title: z.string().max(1024) }).optional(),
			list_reply: z
				.looseObject({
					id: z.string().max(1024),
					title: z.string().max(1024),
					description: z.string().max(1024).optional(),
				})
				.optional(),
		})
		.optional(),
	button: z.looseObject({ payload: z.string().max(1024).optional(), text: z.string().max(1024).optional() }).optional(),
	unsupported: z.looseObject({ type: z.string().max(64).optional() }).optional(),
	errors: z.array(z.looseObject({ code: z.number().optional(), title: z.string().optional() })).optional(),
});

export type WebhookMessage = z.infer<typeof webhookMessageSchema>;

export const webhookStatusSchema = z.looseObject({
	id: z.string().min(1).max(512),
	status: z.string().min(1).max(32),
	timestamp: z.string().regex(/^\d{1,12}$/),
	recipient_id: z.string().max(256).optional(),
	errors: z
		.array(
			z.looseObject({
				code: z.number().optional(),
				title: z.string().max(1024).optional(),
				message: z.string().max(1024).optional(),
				error_data: z.looseObject({ details: z.string().max(4096).optional() }).optional(),
			}),
		)
		.optional(),
});

export type WebhookStatus = z.infer<typeof webhookStatusSchema>;

const valueSchema = z.looseObject({
	messaging_product: z.string().optional(),
	metadata: z.looseObject({
		phone_number_id: z.string().min(1).max(64),
		display_phone_number: z.string().max(64).optional(),
	}),
	contacts: z
		.array(
			z.looseObject({
				wa_id: z.string().max(256).optional(),
				profile: z.looseObject({ name: z.string().max(1024).optional() }).optional(),
			}),
		)
		.max(1000)
		.optional(),
	messages: z.array(webhookMessageSchema).max(1000).optional(),
	statuses: z.array(webhookStatusSchema).max(1000).optional(),
});

/** A change of a field Parley does not read (`account_update`, template status…) keeps only its name. */
const changeSchema = z.union([
	z.looseObject({ field: z.literal('messages'), value: valueSchema }),
	z.looseObject({
		field: z
			.string()
			.max(128)
			.refine((field) => field !== 'messages'),
		value: z.unknown().optional(),
	}),
]);

export const webhookPayloadSchema = z.looseObject({
	object: z.literal('whatsapp_business_account'),
	entry: z
		.array(z.looseObject({ id: z.string().max(64), changes: z.array(changeSchema).max(1000) }))
		.min(1)
		.max(1000),
});

export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
export type WebhookValue = z.infer<typeof valueSchema>;

/** The `messages` changes' values of a payload, in order: what Parley applies. */
export function messageValues(payload: WebhookPayload): WebhookValue[] {
	return payload.entry.flatMap((entry) =>
		entry.changes.flatMap((change) => (change.field === 'messages' ? [change.value as WebhookValue] : [])),
	);
}
