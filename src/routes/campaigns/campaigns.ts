import { createRoute, z } from '@hono/zod-openapi';
import {
	type CampaignView,
	campaignChangesSchema,
	campaignFiltersSchema,
	campaignSchema,
	createCampaign,
	deleteCampaign,
	getCampaign,
	listCampaigns,
	newCampaignSchema,
	updateCampaign,
} from '../../domain/campaigns/campaigns';
import {
	listRecipients,
	recipientCursor,
	recipientFiltersSchema,
	recipientSchema,
} from '../../domain/campaigns/recipients';
import {
	previewCampaign,
	previewRequestSchema,
	previewSchema,
	testSend,
	testSendSchema,
	testSentSchema,
} from '../../domain/campaigns/results';
import { cancelCampaign, sendAtSchema, sendOrSchedule } from '../../domain/campaigns/schedule';
import { workspaceTimeZone } from '../../domain/widget/settings';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';
import { newestFirstCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';

const at = '2026-11-23T12:00:00.000Z';
const campaignExample: CampaignView = {
	id: 'cmp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Black Friday',
	template: 'Hi {{ contact.name }}, our sale starts today!',
	subject: null,
	audience: { kind: 'filter', tags: ['vip'] },
	channel: 'widget',
	whatsappNumberId: null,
	whatsappTemplate: null,
	status: 'scheduled',
	sendAt: '2026-11-27T12:00:00.000Z',
	sendAtLocal: '2026-11-27T09:00',
	timeZone: 'America/Sao_Paulo',
	counts: { targeted: 0, pending: 0, sending: 0, sent: 0, failed: 0, skipped: 0, cancelled: 0, replied: 0 },
	createdBy: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	createdAt: at,
	updatedAt: at,
	startedAt: null,
	finishedAt: null,
};
const sentExample: CampaignView = {
	...campaignExample,
	channel: 'email',
	subject: 'Our sale starts today, {{ contact.name }}',
	status: 'sent',
	counts: { targeted: 120, pending: 0, sending: 0, sent: 117, failed: 1, skipped: 2, cancelled: 0, replied: 23 },
	startedAt: '2026-11-27T12:00:00.000Z',
	finishedAt: '2026-11-27T12:00:14.000Z',
};
const idParams = z.object({ id: idParam('id', campaignExample.id, 'The campaign id.') });
const sendSchema = z.strictObject({ sendAt: sendAtSchema.optional() }).openapi('CampaignSend');
const manage = requires('crm:access');

export const campaignsRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listCampaigns',
			summary: 'List campaigns, newest first',
			description: 'Every campaign of the workspace, with its counts.',
			...manage,
			request: { query: campaignFiltersSchema.extend(pageQuery(25)) },
			responses: {
				200: jsonResponse('A page of campaigns.', pageSchema('CampaignPage', campaignSchema), {
					data: [sentExample],
					nextCursor: null,
				}),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const { workspaceId } = c.var.caller;
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			const page = await listCampaigns(
				c.var.db,
				workspaceId,
				filters,
				readCursor(cursor, newestFirstCursor),
				limit,
				timeZone,
			);
			return c.json(page, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'createCampaign',
			summary: 'Create a campaign (a draft)',
			description:
				'A draft: nothing is sent until `POST /v3/campaigns/{id}/send`. The template is checked now; listed contacts must be in the workspace.',
			...manage,
			request: {
				body: jsonBody(newCampaignSchema, {
					name: 'Black Friday',
					template: 'Hi {{ contact.name }}, our sale starts today!',
					audience: { kind: 'filter', tags: ['vip'] },
				}),
			},
			responses: {
				201: jsonResponse('The new draft.', campaignSchema, {
					...campaignExample,
					status: 'draft',
					sendAt: null,
					sendAtLocal: null,
				}),
				...errorResponses(400, 403, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			const campaign = await createCampaign(c.env, c.var.db, workspaceId, c.req.valid('json'), operatorId, timeZone);
			return c.json(campaign, 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}',
			operationId: 'getCampaign',
			summary: 'One campaign, with its counts',
			...manage,
			request: { params: idParams },
			responses: { 200: jsonResponse('The campaign.', campaignSchema, sentExample), ...errorResponses(403, 404) },
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			return c.json(await getCampaign(c.var.db, workspaceId, c.req.valid('param').id, timeZone), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/{id}',
			operationId: 'updateCampaign',
			summary: 'Change a draft or scheduled campaign',
			description: 'A 409 once it has started sending.',
			...manage,
			request: { params: idParams, body: jsonBody(campaignChangesSchema, { template: 'Hi {{ contact.name }}!' }) },
			responses: {
				200: jsonResponse('The campaign as it now is.', campaignSchema, campaignExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			const { id } = c.req.valid('param');
			return c.json(await updateCampaign(c.env, c.var.db, workspaceId, id, c.req.valid('json'), timeZone), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'deleteCampaign',
			summary: 'Delete a draft or scheduled campaign',
			description: 'A campaign that started sending keeps its history: cancel it instead (409 here).',
			...manage,
			request: { params: idParams },
			responses: { 204: { description: 'The campaign is deleted.' }, ...errorResponses(403, 404, 409) },
		}),
		async (c) => {
			await deleteCampaign(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id);
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/send',
			operationId: 'sendCampaign',
			summary: 'Send a campaign now, or schedule it',
			description:
				'Without `sendAt` (or with a time already past) sending starts now: the audience is fixed (opted-out contacts left out) and goes out in batches through a Queue, within the workspace’s rate limit. With a future `sendAt` it is scheduled; sending it again reschedules it. A 409 unless it is a draft or scheduled.',
			...manage,
			request: { params: idParams, body: jsonBody(sendSchema, { sendAt: '2026-11-27T09:00' }) },
			responses: {
				200: jsonResponse('The campaign, scheduled or sending.', campaignSchema, campaignExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			const { id } = c.req.valid('param');
			await sendOrSchedule(c.env, c.var.db, workspaceId, id, c.req.valid('json').sendAt, timeZone);
			return c.json(await getCampaign(c.var.db, workspaceId, id, timeZone), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/cancel',
			operationId: 'cancelCampaign',
			summary: 'Cancel a scheduled or sending campaign',
			description:
				'Recipients not yet sent to are marked `cancelled` and never get the message; a batch in flight stops at its next claim (a few messages at most). A 409 for a draft (delete it), a sent or a cancelled campaign.',
			...manage,
			request: { params: idParams },
			responses: {
				200: jsonResponse('The cancelled campaign.', campaignSchema, { ...sentExample, status: 'cancelled' }),
				...errorResponses(403, 404, 409),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const { id } = c.req.valid('param');
			await cancelCampaign(c.var.db, workspaceId, id);
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			return c.json(await getCampaign(c.var.db, workspaceId, id, timeZone), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/preview',
			operationId: 'previewCampaign',
			summary: 'Render the message for a sample contact',
			description: 'Sends nothing. Also says how many contacts the audience holds now.',
			...manage,
			request: { params: idParams, body: jsonBody(previewRequestSchema, {}) },
			responses: {
				200: jsonResponse('The preview.', previewSchema, {
					contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					text: 'Hi Ana, our sale starts today!',
					subject: null,
					audienceSize: 120,
				}),
				...errorResponses(400, 403, 404, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			const { id } = c.req.valid('param');
			return c.json(
				await previewCampaign(c.env, c.var.db, workspaceId, id, c.req.valid('json').contactId, timeZone),
				200,
			);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/test',
			operationId: 'testCampaign',
			summary: 'Send the message to one contact as a test',
			description:
				'Into the contact’s latest open widget conversation (or a new one), whatever the campaign’s state; an e-mail campaign’s as one mail to the contact (listed in the sent mail). Not counted as a recipient. A 409 for a contact that opted out, or (e-mail) when no sender is set or the contact cannot be mailed.',
			...manage,
			request: { params: idParams, body: jsonBody(testSendSchema, { contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }) },
			responses: {
				201: jsonResponse('The test message.', testSentSchema, {
					conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					messageId: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					text: 'Hi Ana, our sale starts today!',
					subject: null,
					deliveryId: null,
				}),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const timeZone = await workspaceTimeZone(c.var.db, workspaceId);
			const { id } = c.req.valid('param');
			const sent = await testSend(c.env, c.var.db, workspaceId, id, c.req.valid('json').contactId, timeZone);
			return c.json(sent, 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/recipients',
			operationId: 'listCampaignRecipients',
			summary: "A campaign's recipients, with their status and error",
			description:
				'By contact id. Empty until sending starts. On an e-mail campaign each recipient’s `mail` says where its mail stands (`sent`, or `failed` with the provider’s reason); `mailStatus` lists the recipients whose mail is in one state.',
			...manage,
			request: { params: idParams, query: recipientFiltersSchema.extend(pageQuery(100)) },
			responses: {
				// An e-mail campaign's page: a widget campaign's recipients have a conversation and message, and no mail.
				200: jsonResponse('A page of recipients.', pageSchema('CampaignRecipientPage', recipientSchema), {
					data: [
						{
							contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
							contact: { name: 'Ada Lovelace', email: 'ada@example.com', phone: null },
							status: 'sent',
							error: null,
							conversationId: null,
							messageId: null,
							sentAt: '2026-11-27T12:00:03.000Z',
							repliedAt: '2026-11-27T12:41:00.000Z',
							mail: {
								deliveryId: 'mail_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
								status: 'sent',
								error: null,
								sentAt: '2026-11-27T12:00:04.000Z',
							},
							whatsapp: null,
						},
						{
							contactId: 'ctc_01JD3Q9A1B2C3D4E5F6G7H8J9K',
							contact: { name: 'Bob Marley', email: 'bob@example.org', phone: null },
							status: 'sent',
							error: null,
							conversationId: null,
							messageId: null,
							sentAt: '2026-11-27T12:00:03.000Z',
							repliedAt: null,
							mail: {
								deliveryId: 'mail_01JD3Q9A1B2C3D4E5F6G7H8J9K',
								status: 'failed',
								error: '550 5.1.1 mailbox unavailable',
								sentAt: null,
							},
							whatsapp: null,
						},
					],
					nextCursor: null,
				}),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const { id } = c.req.valid('param');
			const after = readCursor(cursor, recipientCursor);
			return c.json(await listRecipients(c.var.db, c.var.caller.workspaceId, id, filters, after, limit), 200);
		},
	);
