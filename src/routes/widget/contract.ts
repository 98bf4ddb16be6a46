/**
 * The bodies of the public widget endpoints (src/routes/public-*.ts), in one module the widget shares:
 * the server validates with these schemas, the widget imports the inferred types (types only, so nothing of
 * zod reaches its bundle).
 */
import { z } from '@hono/zod-openapi';
import { messageSchema } from '../../domain/conversations/messages';
import { contactSchema } from '../../domain/crm/contacts';
import { handoffSchema } from '../../domain/widget/handoffs';
import { identifySchema, visitorDetailsSchema } from '../../domain/widget/visitor-identity';
import { originInputSchema, visitorConversationSchema } from '../../domain/widget/visitor-sessions';
import { keyedRecord } from '../../lib/schema-rules';
import { customFieldKey } from '../../model/custom-fields';
import { MAX_VISITOR_TEXT, messageText } from '../../model/messages';

export const visitorMessage = z.strictObject({
	text: messageText(MAX_VISITOR_TEXT).openapi({ description: 'The message text (trimmed).' }),
	clientMessageId: z.string().min(1).max(64).openapi({
		description:
			'The widget’s own id for the message, unique per visitor across all its conversations: a retry never duplicates it, and the first message’s id also makes a retried conversation start find the first.',
	}),
});

export const sessionBody = z
	.strictObject({
		sessionToken: z.string().max(1024).optional().openapi({ description: 'The token this browser kept, to resume.' }),
		origin: originInputSchema.optional(),
		identity: identifySchema.optional().openapi({
			description:
				'Who the visitor is, as `POST /identify` takes it: a page of a logged-in user starts its session and says who in one request.',
		}),
	})
	.openapi('VisitorSessionRequest');

export const identifiedResponse = z
	.object({
		contact: contactSchema,
		verified: z.boolean().openapi({ description: 'Whether a valid identity JWT proved who the visitor is.' }),
		unverifiedReason: z
			.string()
			.nullable()
			.openapi({ description: 'Why the identity was not verified; null when it was, or when none was asked.' }),
	})
	.openapi('VisitorIdentified');

export const sessionResponse = z
	.object({
		visitorId: z.string().openapi({ description: 'The visitor (session) id.' }),
		sessionToken: z.string().openapi({ description: 'Send it as `Parley-Session`; keep it to resume.' }),
		resumed: z.boolean().openapi({ description: 'Whether the kept token was still valid.' }),
		conversations: z
			.array(visitorConversationSchema)
			.openapi({ description: 'The visitor’s conversations, most recent first.' }),
		identified: identifiedResponse
			.pick({ verified: true, unverifiedReason: true })
			.extend({
				refusal: z.string().optional().openapi({
					description:
						'Set when the identity was refused (`unverifiedReason` "refused"): why. The session stands; nothing of the identity was stored.',
				}),
			})
			.optional()
			.openapi({ description: 'With an `identity` in the request: whether it was verified.' }),
	})
	.openapi('VisitorSession');

export const startBody = z
	.strictObject({
		details: visitorDetailsSchema
			.omit({ customData: true })
			.optional()
			.openapi({ description: 'Pre-chat answers: name, e-mail, phone.' }),
		customFields: keyedRecord(customFieldKey, z.string().trim().min(1).max(500))
			.refine((fields) => Object.keys(fields).length <= 30, 'at most 30 fields')
			.optional()
			.openapi({ description: 'Answers to the workspace custom fields, by name (30 at most).', maxProperties: 30 }),
		origin: originInputSchema.optional().openapi({ description: 'The campaign origin of this visit.' }),
		message: visitorMessage.openapi({ description: 'The first message.' }),
	})
	.openapi('VisitorConversationStart');

export const startResponse = z
	.object({ conversation: visitorConversationSchema, message: messageSchema })
	.openapi('VisitorConversationStarted');

export const handoffBody = z
	.strictObject({
		ref: handoffSchema.shape.ref.openapi({
			description:
				'The reference the widget put in the pre-filled text (`newHandoffRef()` in src/protocol/handoff-ref.ts).',
		}),
		channel: handoffSchema.shape.channel.openapi({ description: 'The messaging app the visitor leaves for.' }),
		origin: originInputSchema.optional().openapi({
			description: "The campaign origin the widget captured; without one, the session's is kept.",
		}),
	})
	.openapi('MessagingHandoffRequest');

export const handoffResponse = handoffSchema;

export type VisitorMessageBody = z.infer<typeof visitorMessage>;
export type SessionRequest = z.infer<typeof sessionBody>;
export type SessionResponse = z.infer<typeof sessionResponse>;
export type ConversationStart = z.infer<typeof startBody>;
export type ConversationStarted = z.infer<typeof startResponse>;
export type Identified = z.infer<typeof identifiedResponse>;
export type HandoffRequest = z.infer<typeof handoffBody>;
export type Handoff = z.infer<typeof handoffResponse>;
