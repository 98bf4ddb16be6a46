import { createRoute, z } from '@hono/zod-openapi';
import { messageWhatsappSchema } from '../../domain/channels/whatsapp/delivery-views';
import {
	conversationTemplates,
	listTemplates,
	sendTemplate,
	templateSendSchema,
	whatsappTemplateSchema,
} from '../../domain/channels/whatsapp/templates';
import { conversationWindow } from '../../domain/channels/whatsapp/window';
import { messageSchema } from '../../domain/conversations/messages';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { messageExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';

const numberParams = z.object({ id: idParam('id', 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The connected number’s id.') });
const conversationParams = z.object({
	id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The WhatsApp conversation’s id.'),
});
const templateList = z
	.object({ data: z.array(whatsappTemplateSchema).openapi({ description: 'Every approved template.' }) })
	.openapi('WhatsappTemplateList');
const conversationTemplateList = templateList
	.extend({ numberId: z.string().openapi({ description: 'The connected number the conversation is on.' }) })
	.openapi('WhatsappConversationTemplateList');
const sentTemplate = messageSchema
	.extend({ whatsapp: messageWhatsappSchema, deliveryId: z.string().openapi({ description: 'Its delivery.' }) })
	.openapi('WhatsappTemplateMessage');

const windowSchema = z
	.object({
		numberId: z
			.string()
			.nullable()
			.openapi({ description: 'The connected number the conversation is on; null when the workspace has none.' }),
		enforced: z.boolean().openapi({
			description:
				'Whether Parley refuses a team member’s free-form message outside the window: false when the workspace has no number connected (an integration carries the conversation itself).',
		}),
		lastCustomerMessageAt: z.string().datetime().nullable().openapi({
			description: 'The customer’s last message to the number, by Meta’s timestamp; null when they never wrote to it.',
		}),
		endsAt: z.string().datetime().nullable().openapi({
			description: 'When the window closes (or closed); null when the customer never wrote to the number.',
		}),
		open: z.boolean().openapi({ description: 'Whether a free-form message may be sent now.' }),
	})
	.openapi('WhatsappWindow');

const templateExample = {
	name: 'order_update',
	language: 'en_US',
	category: 'UTILITY',
	parameterFormat: 'POSITIONAL' as const,
	body: 'Hi {{1}}, your order {{2}} has shipped.',
	variables: ['1', '2'],
};

/** WhatsApp message templates: a number's approved ones, and one sent into a conversation. */
export const whatsappTemplatesRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/numbers/{id}/templates',
			operationId: 'listWhatsappTemplates',
			summary: 'The approved message templates of a connected WhatsApp number',
			description:
				'As Meta lists them for the number’s business account (every page), kept a minute. 503 when Meta’s Graph API does not answer or refuses (an expired token).',
			...requires('messages:send'),
			request: { params: numberParams },
			responses: {
				200: jsonResponse('The approved templates.', templateList, { data: [templateExample] }),
				...errorResponses(403, 404, 503),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			return c.json({ data: await listTemplates(c.env, c.var.db, c.var.caller.workspaceId, id) }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/conversations/{id}/templates',
			operationId: 'listWhatsappConversationTemplates',
			summary: 'The approved templates a WhatsApp conversation can be sent',
			description:
				'Those of the number the conversation is on (the one its customer last wrote to), for anyone who may write in it: an agent included, who may not list the workspace’s numbers. 422 for a conversation on another channel or with no connected number; 503 when Meta’s Graph API does not answer.',
			...requires('messages:send'),
			request: { params: conversationParams },
			responses: {
				200: jsonResponse('The number and its approved templates.', conversationTemplateList, {
					numberId: 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					data: [templateExample],
				}),
				...errorResponses(403, 404, 422, 503),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			return c.json(await conversationTemplates(c.env, c.var.db, c.var.caller.workspaceId, id), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/conversations/{id}/window',
			operationId: 'getWhatsappConversationWindow',
			summary: 'The 24-hour customer-service window of a WhatsApp conversation',
			description:
				'Counted as the conversation refuses a free-form message (409): from Meta’s timestamp of the customer’s last message to the number, which a late webhook makes older than when Parley received it. For anyone who may write in the conversation. 422 for a conversation on another channel.',
			...requires('messages:send'),
			request: { params: conversationParams },
			responses: {
				200: jsonResponse('Where the window stands.', windowSchema, {
					numberId: 'wan_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					enforced: true,
					lastCustomerMessageAt: '2026-11-26T09:15:03.000Z',
					endsAt: '2026-11-27T09:15:03.000Z',
					open: true,
				}),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			return c.json(await conversationWindow(c.var.db, c.var.caller.workspaceId, id), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/conversations/{id}/template',
			operationId: 'sendWhatsappTemplate',
			summary: 'Send an approved template into a WhatsApp conversation',
			description:
				'The way to write to the customer outside the 24-hour customer-service window (where a free-form message is refused with 409). The variables are Liquid, rendered with the conversation’s contact as campaigns render theirs; the stored message’s text is the template’s body filled in, posted as the token’s operator, and its delivery is queued.',
			...requires('messages:send'),
			request: {
				params: conversationParams,
				body: jsonBody(templateSendSchema, {
					name: 'order_update',
					language: 'en_US',
					variables: ['{{ contact.name }}', 'A-1042'],
				}),
			},
			responses: {
				201: jsonResponse('The stored message and its delivery.', sentTemplate, {
					...messageExample,
					text: 'Hi Ada, your order A-1042 has shipped.',
					whatsapp: { status: 'queued' },
					deliveryId: 'wad_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
				}),
				...errorResponses(400, 403, 404, 409, 415, 422, 503),
			},
		}),
		async (c) => {
			const { id } = c.req.valid('param');
			const { workspaceId, operatorId } = c.var.caller;
			const { message, deliveryId } = await sendTemplate(
				c.env,
				c.var.db,
				workspaceId,
				operatorId,
				id,
				c.req.valid('json'),
			);
			return c.json({ ...message, whatsapp: { status: 'queued' as const }, deliveryId }, 201);
		},
	);
