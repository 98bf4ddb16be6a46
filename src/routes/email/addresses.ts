import { createRoute, z } from '@hono/zod-openapi';
import {
	addInboundAddress,
	inboundAddressSchema,
	listInboundAddresses,
	MAX_INBOUND_ADDRESSES,
	newInboundAddressSchema,
	removeInboundAddress,
} from '../../domain/channels/email/addresses';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

const example = {
	id: 'mad_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	address: 'support@acme.example',
	createdAt: '2026-11-24T10:00:00.000Z',
};
const idParams = z.object({ id: idParam('id', example.id, 'The inbound address id.') });

/** The workspace's inbound addresses (src/domain/channels/email/addresses.ts). */
export const inboundAddressesRoutes = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/',
			operationId: 'listInboundAddresses',
			summary: "The workspace's inbound e-mail addresses",
			description: 'The addresses whose mail starts conversations on channel `email`, oldest first.',
			...requires('admin'),
			responses: {
				200: jsonResponse('The addresses.', z.object({ data: z.array(inboundAddressSchema) }), { data: [example] }),
				...errorResponses(403),
			},
		}),
		async (c) => c.json({ data: await listInboundAddresses(c.var.db, c.var.caller.workspaceId) }, 200),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/',
			operationId: 'addInboundAddress',
			summary: 'Receive mail at an address',
			description: `Mail Email Routing hands this Worker for the address (routed to it with a rule or the catch-all) starts a conversation in this workspace; the address, lower-cased, belongs to one workspace across the deployment (409 when another has it). \`reply+…\` addresses are the conversations' reply addresses and cannot be added. At most ${MAX_INBOUND_ADDRESSES}. The API's origin of this request links the files of the mail received at it.`,
			...requires('admin'),
			request: { body: jsonBody(newInboundAddressSchema, { address: 'support@acme.example' }) },
			responses: {
				201: jsonResponse('The address.', inboundAddressSchema, example),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const origin = new URL(c.req.url).origin;
			return c.json(await addInboundAddress(c.var.db, c.var.caller.workspaceId, c.req.valid('json'), origin), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/{id}',
			operationId: 'removeInboundAddress',
			summary: 'Stop receiving mail at an address',
			description: 'Mail to it is rejected from then on; what was received stays.',
			...requires('admin'),
			request: { params: idParams },
			responses: { 204: { description: 'Removed.' }, ...errorResponses(403, 404) },
		}),
		async (c) => {
			await removeInboundAddress(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id);
			return c.body(null, 204);
		},
	);
