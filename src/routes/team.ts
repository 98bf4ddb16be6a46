import { createRoute, z } from '@hono/zod-openapi';
import { requirePermission } from '../auth/middleware';
import { disconnectOperatorLater } from '../domain/live';
import { createOperator, issuedTokenSchema, issueTokenFor, newOperatorSchema, operatorSchema } from '../domain/team';
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from '../lib/openapi';
import { createRouter } from '../lib/router';

export const team = createRouter()
	.openapi(
		createRoute({
			method: 'post',
			path: '/members',
			summary: 'Add an operator to the workspace',
			security: bearerSecurity,
			middleware: [requirePermission('admin')] as const,
			request: { body: jsonBody(newOperatorSchema) },
			responses: {
				201: jsonResponse('The new operator.', operatorSchema),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => c.json(await createOperator(c.var.db, c.var.caller.workspaceId, c.req.valid('json')), 201),
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/members/{id}/token',
			summary: "Issue an operator's Token V3 (revokes any token it had)",
			security: bearerSecurity,
			middleware: [requirePermission('admin')] as const,
			request: { params: z.object({ id: idParam('id', 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T') }) },
			responses: {
				201: jsonResponse('The token, shown this once.', issuedTokenSchema),
				...errorResponses(403, 404),
			},
		}),
		async (c) => {
			const { workspaceId } = c.var.caller;
			const operatorId = c.req.valid('param').id;
			const issued = await issueTokenFor(c.var.db, workspaceId, operatorId);
			// The member's previous token is revoked: its live feed closes with it.
			disconnectOperatorLater(c.executionCtx, c.env, workspaceId, operatorId);
			return c.json(issued, 201);
		},
	);
