/**
 * The API document (`GET /v3/openapi.json`, and the `/docs` reference built from it). The routes declare
 * their own paths, bodies, permission and examples; what is true of every operation is added here, once:
 * tags, the response headers the middleware sets, the permission or session sentence in each description, and
 * the refusals the shared middleware answers (src/http/openapi-refusals.ts). Built once per isolate: the
 * routes cannot change after start-up.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import { child, headerRef, isObject, type Json, type JsonObject } from './openapi-json';
import { documentRefusals } from './openapi-refusals';

type Document = ReturnType<OpenAPIHono<AppEnv>['getOpenAPI31Document']>;

const TOKEN_FORMAT =
	'A Token V3 is `prly_` followed by 49 base62 characters (`[0-9A-Za-z]`): 43 random ones, then a 6-character ' +
	'checksum of them, so a mistyped token is refused without a database read. Send it as ' +
	'`Authorization: Bearer prly_…`. An admin issues one per operator with `POST /v3/team/members/{id}/token` ' +
	'(`npm run seed` prints the first); `POST /v3/tokens/regenerate` replaces the calling token. A token acts ' +
	"with its operator's permissions; keep it in your backend, never in a browser or a repository.";

const INFO_DESCRIPTION = [
	'Customer conversations: the widget, the inbox, messages and workflows.',
	'',
	'**Authentication.** The `/v3` routes take a Token V3 (`Authorization: Bearer prly_…`); each operation names',
	'the permission its operator needs (`x-required-permission`; `admin` holds every permission). The public',
	'`/widget` routes take no token: the widget proves its visitor with the `Parley-Session` header.',
	'',
	'**Errors** always have the body `{ error, message, statusCode }`.',
	'',
	'**Unknown parameters are refused.** Every operation answers a query parameter it does not declare with a `422`',
	'that names it (`query.stauts: not a parameter this operation takes`), and does nothing: a misspelt filter that',
	'were ignored would list, or change, far more than was meant. Each operation lists the parameters it takes.',
	'',
	'**Concurrent edits.** Bots, scenarios, rules, assignment rules, deals, contacts, custom fields and the widget',
	'settings carry an `ETag` on their read and write answers. Send it back as `If-Match` (optional, recommended) on',
	'PATCH, PUT or DELETE: when someone changed it since, the answer is `412` and nothing changes; `*` matches any version.',
	'',
	'**Rate limits.** Every `/v3` answer after authentication carries `RateLimit` and `RateLimit-Policy`',
	'(draft-ietf-httpapi-ratelimit-headers); a `429` adds `Retry-After`.',
	'',
	'**Reading your own writes.** Every answer that reached the database carries `x-d1-bookmark`. `GET`s may be',
	'answered from a read replica near you: send the latest bookmark you received back as `x-d1-bookmark` and the',
	'answer is never older than it. Writes and every permission check read the primary.',
	'',
	'**WebSockets.** The `…/live` operations upgrade to a WebSocket; their frames, close codes and limits are',
	'described in `docs/live-protocol.md` in the Parley repository.',
	'',
	'An interactive reference of this document is served at `/docs`.',
].join('\n');

const TAGS: { prefix: string; name: string; description: string }[] = [
	{
		prefix: '/v3/conversations',
		name: 'Conversations',
		description: 'The inbox: conversations, their messages and read receipts.',
	},
	{
		prefix: '/v3/contacts',
		name: 'Contacts',
		description: 'The contact database: create, find, change, upsert by e-mail or phone, delete.',
	},
	{
		prefix: '/v3/tags',
		name: 'Tags',
		description: 'Tags shared by contacts and conversations: list, create, rename, delete.',
	},
	{
		prefix: '/v3/custom-fields',
		name: 'Custom fields',
		description: 'The extra fields of contacts and deals: their key, type and options, checked on every write.',
	},
	{ prefix: '/v3/funnels', name: 'CRM', description: 'Funnels and their stages, deals, and notes on deals.' },
	{ prefix: '/v3/deals', name: 'CRM', description: 'Funnels and their stages, deals, and notes on deals.' },
	{
		prefix: '/v3/bots',
		name: 'Bots',
		description: 'Conversational flows: drafts, published versions, rollbacks, simulation and integration tests.',
	},
	{
		prefix: '/v3/campaigns',
		name: 'Campaigns',
		description: 'Bulk messages to an audience of contacts: drafts, schedules, sending, cancelling, recipients.',
	},
	{
		prefix: '/v3/reports',
		name: 'Reports',
		description: 'Conversations by status, channel, team and campaign origin; campaign results. JSON or CSV.',
	},
	{ prefix: '/v3/files', name: 'Files', description: 'Files visitors sent in conversations.' },
	{
		prefix: '/v3/email',
		name: 'E-mail',
		description: 'Mail as a channel: sender and continuation settings, inbound addresses, mail received and sent.',
	},
	{
		prefix: '/v3/whatsapp',
		name: 'WhatsApp',
		description: 'WhatsApp as a channel: connected business numbers, their credentials and webhook.',
	},
	{
		prefix: '/whatsapp/',
		name: 'WhatsApp',
		description: 'WhatsApp as a channel: connected business numbers, their credentials and webhook.',
	},
	{ prefix: '/v3/tasks', name: 'Tasks', description: 'Operators’ to-dos about contacts, conversations and deals.' },
	{
		prefix: '/v3/messages',
		name: 'Messages',
		description: 'Operator messages into a conversation, and the team’s private notes there.',
	},
	{
		prefix: '/v3/canned-replies',
		name: 'Canned replies',
		description: 'The team’s saved answers, inserted in the composer with `/shortcut`: list, save, change, render.',
	},
	{
		prefix: '/v3/widget',
		name: 'Widget settings',
		description: 'How the widget looks and behaves, identity verification and messaging-app handoffs.',
	},
	{
		prefix: '/v3/team',
		name: 'Team',
		description: 'Operators, their groups and tokens, their console sessions and password links.',
	},
	{
		prefix: '/v3/auth',
		name: 'Console sign-in',
		description: 'The operator console’s sign-in, session, sign-out and passwords (a session cookie, not a token).',
	},
	{
		prefix: '/v3/api-logs',
		name: 'API log',
		description: 'Every /v3 request of the last 30 days: who, which credential, what, the answer and its time.',
	},
	{
		prefix: '/v3/directory',
		name: 'Team',
		description: 'Operators, their groups and tokens, their console sessions and password links.',
	},
	{ prefix: '/v3/tokens', name: 'Tokens', description: 'The calling token.' },
	{ prefix: '/v3/me', name: 'Tokens', description: 'The calling token.' },
	{
		prefix: '/v3/scenarios',
		name: 'Scenarios',
		description:
			'Backend workflows: drafts, published versions, test runs, their inbound webhooks, their runs and retries.',
	},
	// Today's only automation setting is the scenarios' flood protection.
	{ prefix: '/v3/automation-settings', name: 'Scenarios', description: '' },
	{
		prefix: '/v3/templates',
		name: 'Templates',
		description: 'Liquid templates rendered with sample values, as bots, scenarios, rules and campaigns render them.',
	},
	{
		prefix: '/v3/automation-rules',
		name: 'Automation rules',
		description: 'Classic rules (a trigger, a condition, actions) and the log of why each fired or did not.',
	},
	{
		prefix: '/v3/assignment',
		name: 'Auto-assignment',
		description: 'Routing rules (strategy, capacity, presence, business hours) and the queue of conversations waiting.',
	},
	{
		prefix: '/v3/webhooks',
		name: 'Webhooks',
		description: 'Outbound webhooks: endpoints, their signing secrets, deliveries and re-sends.',
	},
	{ prefix: '/v3/workflows', name: 'Workflows', description: 'The inbound webhook path that starts scenario runs.' },
	{ prefix: '/v3/live', name: 'Live', description: 'The operators’ inbox feed (WebSocket).' },
	{
		prefix: '/mail/',
		name: 'Mail links',
		description: 'What links in mail open, without a token: the stop link of continuation mails, a linked file.',
	},
	{
		prefix: '/widget/',
		name: 'Public widget',
		description: 'What the embedded widget calls: no token; a visitor session instead.',
	},
];

const HEADERS: JsonObject = {
	RateLimit: {
		description:
			'What is left of the caller\'s budget: `"per-token";r=<remaining>;t=<seconds until reset>` (`"per-session"` for the console).',
		schema: { type: 'string', example: '"per-token";r=119;t=60' },
	},
	'RateLimit-Policy': {
		description: 'The per-token budget: `"per-token";q=<requests>;w=<window in seconds>`.',
		schema: { type: 'string', example: '"per-token";q=120;w=60' },
	},
	'x-d1-bookmark': {
		description:
			'The newest state of the database this request saw or wrote (D1 read replication). Send the latest one you received back in the same request header so a `GET` answered from a replica is never older than it.',
		schema: { type: 'string', maxLength: 100, example: '00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683' },
	},
	'Retry-After': {
		description: 'Seconds to wait before retrying.',
		schema: { type: 'integer', minimum: 0, example: 12 },
	},
	'Idempotent-Replayed': {
		description:
			'Present (`true`) when this answer is the stored result of an earlier request with the same Idempotency-Key.',
		schema: { type: 'string', enum: ['true'] },
	},
	'WWW-Authenticate': {
		description:
			'The challenge: on `/v3`, RFC 6750\'s `Bearer realm="parley"`, with `error="invalid_token"` when a token was sent but is malformed, unknown or revoked; on the public widget routes, `Parley-Session realm="parley"`.',
		schema: { type: 'string', example: 'Bearer realm="parley", error="invalid_token"' },
	},
	Deprecation: {
		description:
			'RFC 9745, on every answer to a token older than 90 days: `@<unix seconds>`, when rotation fell due. Rotate it (`POST /v3/tokens/regenerate`).',
		schema: { type: 'string', example: '@1771502400' },
	},
	Link: {
		description:
			'With `Deprecation`: where to read the token\'s age, `</v3/me>; rel="deprecation"; type="application/json"`.',
		schema: { type: 'string', example: '</v3/me>; rel="deprecation"; type="application/json"' },
	},
	Allow: {
		description: 'The methods this path does serve.',
		schema: { type: 'string', example: 'GET, POST' },
	},
	ETag: {
		description: 'The config version; send it back in `If-None-Match` to get a 304 when nothing changed.',
		schema: { type: 'string', example: '"1763726400000"' },
	},
	'Cache-Control': {
		description: 'Fresh for 60 s, then served stale while the widget revalidates in the background.',
		schema: { type: 'string', example: 'public, max-age=60, stale-while-revalidate=86400' },
	},
	Location: {
		description: 'The same address on https.',
		schema: {
			type: 'string',
			format: 'uri',
			example: 'https://parley.example.com/mail/stop/eyJwdXJwb3NlIjoic3RvcCJ9.c2lnbmF0dXJl',
		},
	},
};

const SECURITY_SCHEMES: JsonObject = {
	WebhookSignature: {
		type: 'apiKey',
		in: 'header',
		name: 'webhook-signature',
		description:
			"Standard Webhooks: `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the webhook's secret); a timestamp 5 minutes off is refused.",
	},
	WebhookSecret: {
		type: 'apiKey',
		in: 'header',
		name: 'X-Webhook-Secret',
		description: "The webhook's secret itself, for a sender that cannot sign.",
	},
	TokenV3: { type: 'http', scheme: 'bearer', bearerFormat: 'Token V3 (prly_…)', description: TOKEN_FORMAT },
	ConsoleSession: {
		type: 'apiKey',
		in: 'cookie',
		name: '__Host-parley_session',
		description:
			'The operator console’s session cookie, set by `POST /v3/auth/sign-in`: accepted only from the console’s own origin, and with `X-CSRF-Token` (from the sign-in answer) on every request that changes something. Integrations send a Token V3.',
	},
	ParleySession: {
		type: 'apiKey',
		in: 'header',
		name: 'Parley-Session',
		description: 'A visitor session token from `POST /widget/{workspaceId}/sessions`, signed for one workspace.',
	},
	ParleySessionQuery: {
		type: 'apiKey',
		in: 'query',
		name: 'session',
		description:
			'The visitor session token on the WebSocket, which cannot carry headers; or offer it as the `session.<token>` subprotocol next to `parley.v1`.',
	},
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const documents = new WeakMap<object, Document>();

/**
 * The app's OpenAPI 3.1 document, generated on first use and then kept for the isolate's life: the
 * generator walks every zod schema, which is too much work to repeat on each request.
 */
export function apiDocument(app: OpenAPIHono<AppEnv>): Document {
	const known = documents.get(app);
	if (known) return known;
	const generated = app.getOpenAPI31Document({
		openapi: '3.1.0',
		info: { title: 'Parley API', version: '3.0.0', description: INFO_DESCRIPTION },
		// Relative: the deployment that serves the document (`npm run dev` serves on http://localhost:8787).
		servers: [{ url: '/', description: 'The deployment serving this document' }],
		tags: uniqueTags(),
	});
	const document = polish(JSON.parse(JSON.stringify(generated)) as JsonObject) as unknown as Document;
	documents.set(app, document);
	return document;
}

function uniqueTags() {
	const seen = new Map<string, string>();
	for (const tag of TAGS) if (!seen.has(tag.name)) seen.set(tag.name, tag.description);
	return [...seen].map(([name, description]) => ({ name, description }));
}

function polish(document: JsonObject): JsonObject {
	const components = child(document, 'components');
	components.headers = HEADERS;
	components.securitySchemes = { ...child(components, 'securitySchemes'), ...SECURITY_SCHEMES };
	for (const [path, item] of Object.entries(child(document, 'paths'))) {
		if (!isObject(item)) continue;
		for (const method of METHODS) {
			const operation = item[method];
			if (isObject(operation)) polishOperation(path, operation, method);
		}
	}
	withoutRequestDefaults(document);
	return document;
}

/** The bookmark a `/v3` read may send (src/db/sessions.ts): malformed ones are ignored, not refused. */
const BOOKMARK_PARAMETER: JsonObject = {
	name: 'x-d1-bookmark',
	in: 'header',
	required: false,
	description:
		'The latest `x-d1-bookmark` an answer gave you: this read is then never older than it. Optional; a malformed value is ignored.',
	schema: { type: 'string', maxLength: 100 },
};

function polishOperation(path: string, operation: JsonObject, method: string): void {
	const tag = TAGS.find((t) => path.startsWith(t.prefix));
	if (tag) operation.tags = [tag.name];
	const security = Array.isArray(operation.security) ? operation.security : [];
	const byToken = security.some((requirement) => isObject(requirement) && 'TokenV3' in requirement);
	operation.description = [operation.description, credentialSentence(operation, byToken, security)]
		.filter((part) => typeof part === 'string' && part !== '')
		.join('\n\n');
	const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
	const idempotent = parameters.some((p) => isObject(p) && p.name === 'idempotency-key');
	// A socket upgrade reads the primary: only a plain read may be answered from a replica.
	const replicaRead = byToken && method === 'get' && !path.endsWith('/live');
	if (replicaRead) operation.parameters = [...parameters, BOOKMARK_PARAMETER];
	const responses = child(operation, 'responses');
	documentRefusals(path, operation, method, security);
	for (const [status, response] of Object.entries(responses)) {
		if (!isObject(response)) continue;
		const headers = child(response, 'headers');
		if (byToken && status !== '401') {
			headers.RateLimit = headerRef('RateLimit');
			headers['RateLimit-Policy'] = headerRef('RateLimit-Policy');
			headers.Deprecation = headerRef('Deprecation');
			headers.Link = headerRef('Link');
		}
		if (status === '401') headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
		if (status === '429') headers['Retry-After'] = headerRef('Retry-After');
		if (status === '405') headers.Allow = headerRef('Allow');
		if (idempotent && status.startsWith('2')) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
		if (byToken && status.startsWith('2')) headers['x-d1-bookmark'] = headerRef('x-d1-bookmark');
		if (Object.keys(headers).length === 0) delete response.headers;
	}
}

function credentialSentence(operation: JsonObject, byToken: boolean, security: Json[]): string {
	if (security.some((r) => isObject(r) && 'WebhookSignature' in r)) {
		return "**Credential:** any valid Token V3 of the workspace, the webhook's Standard Webhooks signature, or its secret in `X-Webhook-Secret`; none for a webhook set `open`.";
	}
	if (byToken) {
		const permission = operation['x-required-permission'];
		return typeof permission === 'string' && permission !== 'none'
			? `**Permission:** a Token V3 (or the console's session) whose operator holds \`${permission}\` (or \`admin\`).`
			: "**Permission:** any valid Token V3 (or the console's session).";
	}
	if (security.some((r) => isObject(r) && 'ParleySessionQuery' in r)) {
		return '**Credential:** the visitor session, as the `session.<token>` subprotocol or the `session` query parameter.';
	}
	const needsSession = security.some((r) => isObject(r) && 'ParleySession' in r);
	const optional = security.some((r) => isObject(r) && Object.keys(r).length === 0);
	if (needsSession && optional) return '**Credential:** none needed; a `Parley-Session` that is sent must be valid.';
	if (needsSession) return '**Credential:** the visitor’s `Parley-Session` header.';
	return '**Credential:** none; anyone may call it.';
}

/**
 * A request field with a default may be left out. JSON Schema says so by leaving it out of `required`, but
 * openapi-typescript (default settings) types every property carrying `default` in a component schema as
 * present, as if it were a response. So in the schemas requests use, the default moves from the `default`
 * keyword into the description: the field stays optional for generated clients and documented for readers.
 */
function withoutRequestDefaults(document: JsonObject): void {
	const schemas = child(child(document, 'components'), 'schemas');
	const pending: Json[] = [];
	for (const item of Object.values(child(document, 'paths'))) {
		if (!isObject(item)) continue;
		for (const method of METHODS) {
			const operation = item[method];
			if (isObject(operation) && isObject(operation.requestBody)) pending.push(operation.requestBody);
		}
	}
	const visited = new Set<string>();
	while (pending.length > 0) {
		const node = pending.pop();
		if (Array.isArray(node)) pending.push(...node);
		if (!isObject(node)) continue;
		const ref = node.$ref;
		if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
			const name = ref.slice('#/components/schemas/'.length);
			const target = schemas[name];
			if (!visited.has(name) && isObject(target)) {
				visited.add(name);
				pending.push(target);
			}
			continue;
		}
		if ('default' in node && ('type' in node || 'anyOf' in node || 'enum' in node || '$ref' in node)) {
			const described = typeof node.description === 'string' ? `${node.description} ` : '';
			node.description = `${described}Default: \`${JSON.stringify(node.default)}\`.`;
			delete node.default;
		}
		for (const [key, value] of Object.entries(node)) {
			if (key === 'example' || key === 'examples') continue;
			pending.push(value);
		}
	}
}
