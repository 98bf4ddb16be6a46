import { createRoute, z } from '@hono/zod-openapi';
import { closeReplacedTokenSockets } from '../../domain/conversations/live';
import {
	createGroup,
	deleteGroup,
	getGroup,
	groupChangesSchema,
	groupCursor,
	groupSchema,
	listGroups,
	newGroupSchema,
	updateGroup,
} from '../../domain/team/groups';
import { deleteMember } from '../../domain/team/member-removal';
import {
	createMember,
	getMember,
	listMembers,
	memberChangesSchema,
	memberCursor,
	memberFiltersSchema,
	memberSchema,
	newMemberSchema,
	updateMember,
} from '../../domain/team/members';
import { availableOperators, availableSchema, presenceSchema, teamPresence } from '../../domain/team/presence';
import { issuedTokenSchema, issueTokenFor } from '../../domain/team/tokens';
import { errorResponses, idParam, jsonBody, jsonResponse, requires } from '../../http/openapi';
import { groupExample, issuedTokenExample, operatorExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { pageQuery, pageSchema, readCursor } from '../../lib/cursor';
import { operatorActor } from '../../model/actor';

const memberParams = z.object({ id: idParam('id', 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The operator id.') });
const groupParams = z.object({ id: idParam('id', 'grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The group id.') });
const memberPage = pageSchema('OperatorPage', memberSchema, 'This page, by name.');
const groupPage = pageSchema('GroupPage', groupSchema, 'This page, by name.');

export const team = createRouter()
	.openapi(
		createRoute({
			method: 'get',
			path: '/members',
			operationId: 'listTeamMembers',
			summary: "List the workspace's operators",
			description: 'By name, with their groups, capacity and whether they are disabled; filtered by group or state.',
			...requires('admin'),
			request: { query: memberFiltersSchema.extend(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of operators.', memberPage, { data: [operatorExample], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor, ...filters } = c.req.valid('query');
			const after = readCursor(cursor, memberCursor);
			return c.json(await listMembers(c.var.db, c.var.caller.workspaceId, filters, after, limit), 200);
		},
	)
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
				body: jsonBody(newMemberSchema, {
					email: 'rita@acme.example',
					name: 'Rita Alves',
					permissions: ['conversations:read', 'messages:send'],
					groups: ['grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T'],
					capacity: 8,
				}),
			},
			responses: {
				201: jsonResponse('The new operator.', memberSchema, operatorExample),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			return c.json(await createMember(c.env, c.var.db, workspaceId, c.req.valid('json'), actor), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/members/{id}',
			operationId: 'getTeamMember',
			summary: 'One operator',
			description: 'The operator, with its groups, capacity and state.',
			...requires('admin'),
			request: { params: memberParams },
			responses: { 200: jsonResponse('The operator.', memberSchema, operatorExample), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(await getMember(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/members/{id}',
			operationId: 'updateTeamMember',
			summary: "Change an operator's name, permissions, groups or capacity, or disable it",
			description:
				'`disabled: true` refuses its token from the next request and closes its sockets at once; `false` enables it again. New permissions apply from its next request, and its open sockets close (a console reconnects with them). An operator cannot disable itself or take away its own `admin` (409).',
			...requires('admin'),
			request: { params: memberParams, body: jsonBody(memberChangesSchema, { capacity: 5, disabled: false }) },
			responses: {
				200: jsonResponse('The operator as it now is.', memberSchema, operatorExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			return c.json(await updateMember(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/members/{id}',
			operationId: 'deleteTeamMember',
			summary: 'Remove an operator',
			description:
				'Its token stops at once and its conversations are unassigned (each announced). Messages it wrote keep its id as author. An operator cannot delete itself (409).',
			...requires('admin'),
			request: { params: memberParams },
			responses: { 204: { description: 'The operator is removed.' }, ...errorResponses(403, 404, 409) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			await deleteMember(c.env, c.var.db, workspaceId, c.req.valid('param').id, operatorActor(operatorId));
			return c.body(null, 204);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/members/{id}/token',
			operationId: 'issueTeamMemberToken',
			summary: "Issue an operator's Token V3 (revokes any token it had)",
			description: 'The plaintext token is in this answer only; Parley keeps its SHA-256 hash.',
			...requires('admin'),
			request: { params: memberParams },
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
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/presence',
			operationId: 'getTeamPresence',
			summary: "Every operator's presence",
			description:
				'online, away, busy or offline, and since when. An operator never seen online is absent (offline). The inbox feed (`GET /v3/live`) sends the same list first, then `member.status_changed` events.',
			...requires('conversations:read'),
			responses: {
				200: jsonResponse(
					'The presence of the team.',
					z
						.object({ data: z.array(presenceSchema).openapi({ description: 'One entry per operator ever seen.' }) })
						.openapi('TeamPresence'),
					{
						data: [
							{ operatorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', status: 'online', changedAt: '2026-11-23T12:00:00.000Z' },
						],
					},
				),
				...errorResponses(403),
			},
		}),
		async (c) => c.json({ data: await teamPresence(c.env, c.var.caller.workspaceId) }, 200),
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/available',
			operationId: 'listAvailableOperators',
			summary: 'Who can take a conversation now',
			description:
				'Operators who are online, enabled, in the group when `groupId` is given, and under their capacity (open and pending conversations), least loaded first: what bots and assignment decide with.',
			...requires('conversations:read'),
			request: {
				query: z.strictObject({
					groupId: z.string().min(1).max(64).optional().openapi({ description: 'Only members of this group.' }),
				}),
			},
			responses: {
				200: jsonResponse(
					'The available operators.',
					z
						.object({ data: z.array(availableSchema).openapi({ description: 'Least loaded first.' }) })
						.openapi('AvailableOperators'),
					{
						data: [
							{ operatorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Rita Alves', openConversations: 2, capacity: 8 },
						],
					},
				),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { groupId } = c.req.valid('query');
			const data = await availableOperators(c.env, c.var.db, c.var.caller.workspaceId, { groupId });
			return c.json({ data }, 200);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/groups',
			operationId: 'listTeamGroups',
			summary: "List the workspace's groups",
			description: 'By name, each with its members.',
			...requires('conversations:read'),
			request: { query: z.object(pageQuery(50)) },
			responses: {
				200: jsonResponse('A page of groups.', groupPage, { data: [groupExample], nextCursor: null }),
				...errorResponses(403, 422),
			},
		}),
		async (c) => {
			const { limit, cursor } = c.req.valid('query');
			const after = readCursor(cursor, groupCursor);
			return c.json(await listGroups(c.var.db, c.var.caller.workspaceId, after, limit), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'post',
			path: '/groups',
			operationId: 'createTeamGroup',
			summary: 'Create a group',
			description: 'A name taken in the workspace is a 409; an unknown member id a 422 naming it.',
			...requires('admin'),
			request: {
				body: jsonBody(newGroupSchema, { name: 'Sales', memberIds: ['op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T'] }),
			},
			responses: {
				201: jsonResponse('The new group.', groupSchema, groupExample),
				...errorResponses(400, 403, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const actor = operatorActor(operatorId);
			return c.json(await createGroup(c.env, c.var.db, workspaceId, c.req.valid('json'), actor), 201);
		},
	)
	.openapi(
		createRoute({
			method: 'get',
			path: '/groups/{id}',
			operationId: 'getTeamGroup',
			summary: 'One group',
			description: 'The group, with its members.',
			...requires('conversations:read'),
			request: { params: groupParams },
			responses: { 200: jsonResponse('The group.', groupSchema, groupExample), ...errorResponses(403, 404) },
		}),
		async (c) => c.json(await getGroup(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id), 200),
	)
	.openapi(
		createRoute({
			method: 'patch',
			path: '/groups/{id}',
			operationId: 'updateTeamGroup',
			summary: 'Rename a group or replace its members',
			description: 'A name taken in the workspace is a 409; an unknown member id a 422 naming it.',
			...requires('admin'),
			request: { params: groupParams, body: jsonBody(groupChangesSchema, { name: 'Inside sales' }) },
			responses: {
				200: jsonResponse('The group as it now is.', groupSchema, groupExample),
				...errorResponses(400, 403, 404, 409, 413, 415, 422),
			},
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			const { id } = c.req.valid('param');
			const actor = operatorActor(operatorId);
			return c.json(await updateGroup(c.env, c.var.db, workspaceId, id, c.req.valid('json'), actor), 200);
		},
	)
	.openapi(
		createRoute({
			method: 'delete',
			path: '/groups/{id}',
			operationId: 'deleteTeamGroup',
			summary: 'Delete a group',
			description: 'Its members leave it and its conversations lose it (each announced).',
			...requires('admin'),
			request: { params: groupParams },
			responses: { 204: { description: 'The group is deleted.' }, ...errorResponses(403, 404, 409) },
		}),
		async (c) => {
			const { workspaceId, operatorId } = c.var.caller;
			await deleteGroup(c.env, c.var.db, workspaceId, c.req.valid('param').id, operatorActor(operatorId));
			return c.body(null, 204);
		},
	);
