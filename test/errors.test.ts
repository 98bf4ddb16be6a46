import { describe, expect, it } from 'vitest';
import { api, expectError, seedWorkspace } from './factories';

describe('error bodies', () => {
	it('answers unknown routes with 404 in the error body', async () => {
		const { token } = await seedWorkspace();
		const body = await expectError(await api(token, 'GET', '/v3/nothing-here'), 404);
		expect(body).toEqual({ error: 'Not Found', message: 'No route for GET /v3/nothing-here.', statusCode: 404 });
		await expectError(await api(null, 'GET', '/definitely/not/a/file'), 404);
	});

	it('answers a known path with the wrong method with 405 and an Allow header', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'DELETE', '/v3/conversations');
		const body = await expectError(res, 405);
		expect(body.error).toBe('Method Not Allowed');
		expect(res.headers.get('Allow')).toBe('GET, POST');
	});

	it('answers a body over 1 MiB with 413', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'POST', '/v3/messages', { conversationId: 'conv_x', text: 'x'.repeat(1_100_000) });
		await expectError(res, 413);
	});

	it('carries the IETF rate-limit headers on error answers too', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'GET', '/v3/conversations/conv_missing');
		await expectError(res, 404);
		expect(res.headers.get('RateLimit')).toMatch(/^"per-token";r=\d+;t=\d+$/);
	});
});

describe('GET /v3/openapi.json', () => {
	it('serves an OpenAPI 3.1 document of every route, without a token', async () => {
		const res = await api(null, 'GET', '/v3/openapi.json');
		expect(res.status).toBe(200);
		const doc = (await res.json()) as {
			openapi: string;
			paths: Record<string, Record<string, { security?: unknown[] }>>;
			components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
		};
		expect(doc.openapi).toBe('3.1.0');
		expect(Object.keys(doc.paths).sort()).toEqual([
			'/mail/files/{token}',
			'/mail/stop/{token}',
			'/mail/unsubscribe/{token}',
			'/v3/api-logs',
			'/v3/assignment/queue',
			'/v3/assignment/rules',
			'/v3/assignment/rules/{id}',
			'/v3/auth/password',
			'/v3/auth/session',
			'/v3/auth/set-password',
			'/v3/auth/sign-in',
			'/v3/automation-rules',
			'/v3/automation-rules/executions',
			'/v3/automation-rules/{id}',
			'/v3/automation-settings',
			'/v3/bots',
			'/v3/bots/simulate',
			'/v3/bots/test-integration',
			'/v3/bots/{id}',
			'/v3/bots/{id}/publish',
			'/v3/bots/{id}/versions',
			'/v3/bots/{id}/versions/{version}',
			'/v3/bots/{id}/versions/{version}/publish',
			'/v3/campaigns',
			'/v3/campaigns/{id}',
			'/v3/campaigns/{id}/cancel',
			'/v3/campaigns/{id}/preview',
			'/v3/campaigns/{id}/recipients',
			'/v3/campaigns/{id}/send',
			'/v3/campaigns/{id}/test',
			'/v3/canned-replies',
			'/v3/canned-replies/{id}',
			'/v3/canned-replies/{id}/render',
			'/v3/contacts',
			'/v3/contacts/by-email/{email}',
			'/v3/contacts/by-phone/{phone}',
			'/v3/contacts/{id}',
			'/v3/contacts/{id}/merge',
			'/v3/contacts/{id}/notes',
			'/v3/contacts/{id}/tags/{name}',
			'/v3/conversations',
			'/v3/conversations/search',
			'/v3/conversations/{id}',
			'/v3/conversations/{id}/bot',
			'/v3/conversations/{id}/bot-runs',
			'/v3/conversations/{id}/files',
			'/v3/conversations/{id}/live',
			'/v3/conversations/{id}/mails',
			'/v3/conversations/{id}/messages',
			'/v3/conversations/{id}/read',
			'/v3/conversations/{id}/tags/{name}',
			'/v3/custom-fields',
			'/v3/custom-fields/{id}',
			'/v3/deals',
			'/v3/deals/{id}',
			'/v3/deals/{id}/notes',
			'/v3/directory',
			'/v3/email/addresses',
			'/v3/email/addresses/{id}',
			'/v3/email/deliveries',
			'/v3/email/inbound',
			'/v3/email/inbound/{id}',
			'/v3/email/inbound/{id}/raw',
			'/v3/email/settings',
			'/v3/files/{id}',
			'/v3/funnels',
			'/v3/funnels/{id}',
			'/v3/funnels/{id}/stages',
			'/v3/funnels/{id}/stages/{stageId}',
			'/v3/live',
			'/v3/me',
			'/v3/me/notifications',
			'/v3/me/notifications/alerts',
			'/v3/me/push-subscriptions',
			'/v3/me/push-subscriptions/{id}',
			'/v3/me/status',
			'/v3/me/unread',
			'/v3/messages',
			'/v3/reports/campaigns/{id}',
			'/v3/reports/conversations',
			'/v3/scenarios',
			'/v3/scenarios/test',
			'/v3/scenarios/{id}',
			'/v3/scenarios/{id}/publish',
			'/v3/scenarios/{id}/resume',
			'/v3/scenarios/{id}/runs',
			'/v3/scenarios/{id}/runs/{runId}',
			'/v3/scenarios/{id}/runs/{runId}/retry',
			'/v3/scenarios/{id}/versions',
			'/v3/scenarios/{id}/versions/{version}',
			'/v3/scenarios/{id}/versions/{version}/publish',
			'/v3/scenarios/{id}/webhooks',
			'/v3/scenarios/{id}/webhooks/{webhookId}',
			'/v3/scenarios/{id}/webhooks/{webhookId}/rotate-secret',
			'/v3/tags',
			'/v3/tags/{id}',
			'/v3/tasks',
			'/v3/tasks/{id}',
			'/v3/team/available',
			'/v3/team/groups',
			'/v3/team/groups/{id}',
			'/v3/team/members',
			'/v3/team/members/{id}',
			'/v3/team/members/{id}/password-link',
			'/v3/team/members/{id}/token',
			'/v3/team/presence',
			'/v3/team/sessions',
			'/v3/team/sessions/{id}',
			'/v3/templates/preview',
			'/v3/tokens/regenerate',
			'/v3/webhooks',
			'/v3/webhooks/{id}',
			'/v3/webhooks/{id}/deliveries',
			'/v3/webhooks/{id}/deliveries/{deliveryId}',
			'/v3/webhooks/{id}/deliveries/{deliveryId}/resend',
			'/v3/webhooks/{id}/rotate-secret',
			'/v3/whatsapp/conversations/{id}/template',
			'/v3/whatsapp/conversations/{id}/templates',
			'/v3/whatsapp/conversations/{id}/window',
			'/v3/whatsapp/numbers',
			'/v3/whatsapp/numbers/{id}',
			'/v3/whatsapp/numbers/{id}/templates',
			'/v3/whatsapp/numbers/{id}/verify-token',
			'/v3/widget/handoffs/{ref}',
			'/v3/widget/identity-secret',
			'/v3/widget/info',
			'/v3/widget/logo',
			'/v3/widget/settings',
			'/v3/workflows/webhook/{webhook_id}',
			'/whatsapp/{id}/webhook',
			'/widget/{workspaceId}/config',
			'/widget/{workspaceId}/conversations',
			'/widget/{workspaceId}/conversations/{id}/files',
			'/widget/{workspaceId}/conversations/{id}/files/{fileId}',
			'/widget/{workspaceId}/conversations/{id}/live',
			'/widget/{workspaceId}/conversations/{id}/messages',
			'/widget/{workspaceId}/conversations/{id}/read',
			'/widget/{workspaceId}/handoffs',
			'/widget/{workspaceId}/identify',
			'/widget/{workspaceId}/logo/{file}',
			'/widget/{workspaceId}/reset',
			'/widget/{workspaceId}/sessions',
		]);
		expect(doc.components.schemas).toHaveProperty('WidgetSettings');
		expect(doc.components.schemas).toHaveProperty('Error');
		expect(doc.components.schemas).toHaveProperty('Interactive');
		expect(doc.components.schemas).toHaveProperty('MessagingHandoff');
		expect(doc.components.securitySchemes).toHaveProperty('TokenV3');
		expect(doc.components.securitySchemes).toHaveProperty('ConsoleSession');
		expect(doc.paths['/v3/messages']?.post?.security).toEqual([{ TokenV3: [] }, { ConsoleSession: [] }]);
		expect(doc.paths['/v3/auth/sign-in']?.post?.security).toEqual([]);
	});
});

describe('GET /health', () => {
	it('answers 200 without a token', async () => {
		const res = await api(null, 'GET', '/health');
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: 'ok' });
	});
});
