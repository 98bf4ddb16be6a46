import { createRoute, z } from '@hono/zod-openapi';
import { closeReplacedTokenSockets } from '../domain/live';
import { createOperator, issuedTokenSchema, issueTokenFor, newOperatorSchema, operatorSchema } from '../domain/team';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../lib/openapi';
import { issuedTokenExample, operatorExample } from '../lib/openapi-examples';
import { createRouter } from '../lib/router';

export const team = createRouter()
	.openapi(
		createRoute({
			method: 'post',
			path: '/members',
			operationId: 'createTeamMember',
			summary: 'Add an operator to the workspace',
			description:
				'Also how to make a dedicated API user: an operator with only the permissions an integration needs, then `POST /v3/team/members/{id}/token` for its token.',
			...requires('admin'),
			request: {
				body: jsonBody(newOperatorSchema, {
					email: 'integration@acme.example',
					name: 'CRM integration',
					permissions: ['conversations:read', 'messages:send'],
				}),
			},
			responses: {
				201: jsonResponse('The new operator.', operatorSchema, operatorExample),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => c.json(await createOperator(c.var.db, c.var.caller.workspaceId, c.req.valid('json')), 201),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/members/{id}/token',
			operationId: 'issueTeamMemberToken',
			summary: "Issue an operator's Token V3 (revokes any token it had)",
			description: 'The plaintext token is in this answer only; Parley keeps its SHA-256 hash.',
			...requires('admin'),
			request: { params: z.object({ id: idParam('id', 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The operator id.') }) },
			responses: {
				201: jsonResponse('The token, shown this once.', issuedTokenSchema, issuedTokenExample),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const operatorId = c.req.valid('param').id;
			const issued = await issueTokenFor(c.env, c.var.db, workspaceId, operatorId);
			// The member's previous token is revoked: its live feed closes with it.
			await closeReplacedTokenSockets(c.env, workspaceId, operatorId);
			return c.json(issued, 201);
		},
	);
