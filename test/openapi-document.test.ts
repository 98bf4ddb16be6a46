import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { describe, expect, it, vi } from 'vitest';
import type { AppEnv } from '../src/app-env';
import { isWellFormedToken } from '../src/auth/token';
import { demoPage } from '../src/domain/widget/demo-page';
import { publicWidgetConfigSchema } from '../src/domain/widget/settings';
import { apiDocument } from '../src/http/openapi-document';
import { issuedTokenExample } from '../src/http/openapi-examples';
import wranglerToml from '../wrangler.toml?raw';
import { api, expectError, randomIp, seedOperator, seedWorkspace } from './factories';

interface Schema {
	$ref?: string;
	type?: string | string[];
	pattern?: string;
	default?: unknown;
	description?: string;
	required?: string[];
	properties?: Record<string, Schema>;
	anyOf?: Schema[];
	oneOf?: Schema[];
	allOf?: Schema[];
	items?: Schema;
	minProperties?: number;
	example?: unknown;
}
interface Response {
	description: string;
	headers?: Record<string, { $ref: string }>;
	content?: Record<string, { schema: Schema; example?: unknown }>;
}
interface Operation {
	operationId?: string;
	summary?: string;
	description?: string;
	tags?: string[];
	security?: Record<string, string[]>[];
	'x-required-permission'?: string;
	parameters?: { name: string; in: string; description?: string; schema: Schema }[];
	requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
	responses: Record<string, Response>;
}
interface Document {
	servers?: { url: string }[];
	tags?: { name: string }[];
	paths: Record<string, Record<string, Operation>>;
	components: {
		schemas: Record<string, Schema>;
		securitySchemes: Record<string, { type: string; description?: string; in?: string; name?: string }>;
		headers: Record<string, unknown>;
	};
}

async function fetchDocument(): Promise<Document> {
	const res = await api(null, 'GET', '/v3/openapi.json');
	expect(res.status).toBe(200);
	return (await res.json()) as Document;
}

function operations(doc: Document): [string, Operation][] {
	return Object.entries(doc.paths).flatMap(([path, item]) =>
		Object.entries(item).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
	);
}

const byToken = (op: Operation) => op.security?.some((r) => 'TokenV3' in r) ?? false;

describe('GET /v3/openapi.json', () => {
	it('is the committed docs/openapi.json (run vitest with -u after changing the API)', async () => {
		const doc = await fetchDocument();
		await expect(`${JSON.stringify(doc, null, '\t')}\n`).toMatchFileSnapshot('../docs/openapi.json');
	});

	it('publishes a handoff ref pattern that matches what the server accepts, in either case', async () => {
		const doc = await fetchDocument();
		const ref = doc.paths['/v3/widget/handoffs/{ref}']?.get?.parameters?.find((p) => p.name === 'ref');
		const pattern = new RegExp(ref?.schema.pattern ?? '^$');
		expect(pattern.test(String(ref?.schema.example))).toBe(true);
		expect(pattern.test('7kq2m9xd')).toBe(true);
		// The server accepts the lower-case form the pattern allows: not a 422, a 404 (no such handoff).
		const { token } = await seedWorkspace();
		await expectError(await api(token, 'GET', '/v3/widget/handoffs/7kq2m9xd'), 404);
	});

	it('says a contact reference needs an id, an email or a phone, and a conversation change a field', async () => {
		const { schemas } = (await fetchDocument()).components;
		expect(schemas.ContactReference?.anyOf?.map((branch) => branch.required)).toEqual([['id'], ['email'], ['phone']]);
		expect(schemas.ConversationChanges?.minProperties).toBe(1);
	});

	it('gives every operation a unique operationId, a declared tag, a summary and a description', async () => {
		const doc = await fetchDocument();
		const declared = new Set(doc.tags?.map((t) => t.name));
		const ids = new Set<string>();
		for (const [name, op] of operations(doc)) {
			expect(op.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
			expect(ids.has(op.operationId ?? ''), `${name} repeats ${op.operationId}`).toBe(false);
			ids.add(op.operationId ?? '');
			expect(op.tags?.length, name).toBe(1);
			expect(declared.has(op.tags?.[0] ?? ''), name).toBe(true);
			expect(op.summary, name).toBeTruthy();
			expect(op.description?.length ?? 0, name).toBeGreaterThan(20);
			for (const parameter of op.parameters ?? [])
				expect(parameter.description, `${name} ${parameter.name}`).toBeTruthy();
		}
	});

	it('describes every field of every named schema', async () => {
		const undescribed: string[] = [];
		const visit = (schema: Schema | undefined, path: string): void => {
			if (schema === undefined) return;
			for (const [name, field] of Object.entries(schema.properties ?? {})) {
				const described = field.description ?? field.allOf?.some((part) => part.description);
				if (field.$ref === undefined && !described) undescribed.push(`${path}.${name}`);
				visit(field, `${path}.${name}`);
			}
			visit(schema.items, `${path}[]`);
			for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) visit(part, path);
		};
		for (const [name, schema] of Object.entries((await fetchDocument()).components.schemas)) visit(schema, name);
		expect(undescribed).toEqual([]);
	});

	it('names the permission of every token operation, in its description and as x-required-permission', async () => {
		for (const [name, op] of operations(await fetchDocument())) {
			if (!byToken(op)) continue;
			const permission = op['x-required-permission'];
			expect(permission, name).toBeTruthy();
			if (permission === 'none') expect(op.description, name).toContain('any valid Token V3');
			else expect(op.description, name).toContain(`\`${permission}\``);
		}
		const doc = await fetchDocument();
		expect(doc.paths['/v3/team/members']?.post?.['x-required-permission']).toBe('admin');
		expect(doc.paths['/v3/conversations']?.get?.['x-required-permission']).toBe('conversations:read');
	});

	it('states the permission the server enforces: a token without it is refused, only there', async () => {
		const { workspaceId } = await seedWorkspace();
		let token = '';
		let calls = 0;
		for (const [name, op] of operations(await fetchDocument())) {
			// A fresh operator every 30 calls: the suite's rate limit (40 a minute) counts per operator.
			if (calls++ % 30 === 0) ({ token } = await seedOperator(workspaceId, []));
			const permission = op['x-required-permission'];
			const [method = '', path = ''] = name.split(' ');
			// Any value fits a path parameter's route; the guard answers before the parameters are validated.
			const url = path.replaceAll(/\{[^}]+\}/g, 'x1234567');
			if (permission !== undefined && permission !== 'none') {
				await expectError(await api(token, method, url), 403);
			} else if (byToken(op) && method === 'GET') {
				expect((await api(token, method, url)).status, name).not.toBe(403);
			}
		}
	});

	it('describes the Token V3 format and a session scheme that every public widget operation states', async () => {
		const doc = await fetchDocument();
		expect(doc.servers?.length).toBeGreaterThan(0);
		const { TokenV3, ParleySession } = doc.components.securitySchemes;
		expect(TokenV3?.description).toContain('prly_');
		expect(TokenV3?.description).toContain('49');
		expect(TokenV3?.description).toContain('checksum');
		expect(ParleySession).toMatchObject({ type: 'apiKey', in: 'header', name: 'Parley-Session' });
		for (const [name, op] of operations(doc)) expect(op.security, name).toBeDefined();
		expect(doc.paths['/widget/{workspaceId}/config']?.get?.security).toEqual([]);
		expect(doc.paths['/widget/{workspaceId}/sessions']?.post?.security).toEqual([]);
		expect(doc.paths['/widget/{workspaceId}/identify']?.post?.security).toEqual([{ ParleySession: [] }]);
	});

	it('documents the response headers the server sends, and the 405 and 500 answers', async () => {
		const doc = await fetchDocument();
		for (const [name, op] of operations(doc)) {
			expect(op.responses['405']?.headers?.Allow, name).toBeDefined();
			expect(op.responses['500'], name).toBeDefined();
			expect(op.responses['429']?.headers?.['Retry-After'], name).toBeDefined();
			expect(op.responses['401']?.headers?.['WWW-Authenticate'], name).toBeDefined();
			if (!byToken(op)) continue;
			for (const [status, response] of Object.entries(op.responses)) {
				if (status === '401') continue;
				expect(response.headers?.RateLimit, `${name} ${status}`).toBeDefined();
				expect(response.headers?.Deprecation, `${name} ${status}`).toBeDefined();
			}
		}
		const replayable = ['/v3/messages', '/v3/conversations', '/v3/workflows/webhook/{webhook_id}'];
		for (const path of replayable) {
			const created = Object.entries(doc.paths[path]?.post?.responses ?? {}).find(([s]) => s.startsWith('2'));
			expect(created?.[1].headers?.['Idempotent-Replayed'], path).toBeDefined();
		}
		const config = doc.paths['/widget/{workspaceId}/config']?.get?.responses['200'];
		expect(Object.keys(config?.headers ?? {}).sort()).toEqual(['Cache-Control', 'ETag']);
	});

	it('describes the widget config body, and the served body fits it', async () => {
		const doc = await fetchDocument();
		const config = doc.paths['/widget/{workspaceId}/config']?.get?.responses['200'];
		expect(config?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/PublicWidgetConfig');
		const { workspaceId } = await seedWorkspace();
		const res = await api(null, 'GET', `/widget/${workspaceId}/config`, undefined, { 'CF-Connecting-IP': randomIp() });
		expect(res.status).toBe(200);
		expect(publicWidgetConfigSchema.safeParse(await res.json()).success).toBe(true);
	});

	it('leaves defaulted request fields out of `required` and without a `default` that generators make required', async () => {
		const { schemas } = (await fetchDocument()).components;
		for (const name of ['NewConversation', 'NewMessage', 'NewOperator']) {
			const schema = schemas[name];
			expect(JSON.stringify(schema), name).not.toContain('"default"');
			for (const field of ['channel', 'attachments', 'groups'])
				expect(schema?.required ?? [], name).not.toContain(field);
		}
		expect(schemas.NewConversation?.properties?.channel?.description).toContain('Default: `"api"`');
	});

	it('shows a well-formed Token V3 in its examples', () => {
		expect(isWellFormedToken(issuedTokenExample.token)).toBe(true);
	});

	it('carries an example on every JSON request and success body', async () => {
		for (const [name, op] of operations(await fetchDocument())) {
			for (const media of Object.values(op.requestBody?.content ?? {})) expect(media.example, name).toBeDefined();
			for (const [status, response] of Object.entries(op.responses)) {
				const media = response.content?.['application/json'];
				if (media) expect(media.example, `${name} ${status}`).toBeDefined();
			}
		}
	});
});

describe('apiDocument', () => {
	it('builds the document once per app and then serves the same one', () => {
		const app = new OpenAPIHono<AppEnv>().openapi(
			createRoute({
				method: 'get',
				path: '/ping',
				operationId: 'ping',
				summary: 'Ping',
				responses: { 200: { description: 'Pong.', content: { 'application/json': { schema: z.object({}) } } } },
			}),
			(c) => c.json({}, 200),
		);
		const generate = vi.spyOn(app, 'getOpenAPI31Document');
		const first = apiDocument(app);
		expect(apiDocument(app)).toBe(first);
		expect(generate).toHaveBeenCalledTimes(1);
	});
});

describe('GET /docs', () => {
	it('serves the interactive reference of the same document, without a token', async () => {
		const res = await api(null, 'GET', '/docs');
		expect(res.status).toBe(200);
		expect(res.headers.get('Content-Type')).toContain('text/html');
		expect(await res.text()).toContain('/v3/openapi.json');
	});

	it('loads only scripts of its own origin, under a CSP that names no other origin (no CDN: /docs works offline)', async () => {
		const res = await api(null, 'GET', '/docs');
		const html = await res.text();
		const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1] ?? '');
		expect(scripts.length).toBeGreaterThan(0);
		for (const attributes of scripts) {
			const src = /\bsrc="([^"]*)"/.exec(attributes)?.[1];
			// A script without src runs inline (which the CSP below forbids) unless it is data (a JSON block).
			if (src === undefined) expect(attributes).toContain('type="application/json"');
			else expect(new URL(src, 'https://parley.test').origin).toBe('https://parley.test');
		}
		expect(html).not.toMatch(/(href|src)="(https?:)?\/\//);
		const csp = res.headers.get('Content-Security-Policy') ?? '';
		const directives = new Map(
			csp.split(';').map((d) => {
				const [name = '', ...sources] = d.trim().split(/\s+/);
				return [name, sources] as const;
			}),
		);
		expect(directives.get('default-src')).toEqual(["'self'"]);
		expect(directives.get('script-src')).toEqual(["'self'"]);
		for (const [name, sources] of directives) {
			for (const source of sources) {
				expect([`'self'`, `'none'`, `'unsafe-inline'`, 'data:', 'blob:'], `${name} ${source}`).toContain(source);
			}
		}
	});

	it('is routed to the Worker before the static assets, and linked from the demo page', () => {
		const line = wranglerToml.split('\n').find((l: string) => l.startsWith('run_worker_first'));
		expect(line).toContain('"/docs"');
		expect(demoPage('https://parley.test', 'ws_1')).toContain('href="/docs"');
	});
});
