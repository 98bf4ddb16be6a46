import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';
import { hashPassword } from '../src/auth/passwords';
import type { Permission } from '../src/auth/permissions';
import { openDatabase } from '../src/db/client';
import {
	apiTokens,
	contacts,
	conversations,
	customFields,
	operatorPasswords,
	operators,
	workspaces,
} from '../src/db/schema';
import { newTokenRow } from '../src/domain/team/tokens';
import { newId } from '../src/lib/ids';

export const db = openDatabase(env.DB);

export interface SeededOperator {
	workspaceId: string;
	operatorId: string;
	token: string;
}

/** A new workspace with an admin operator and its token. Each test makes its own: storage is per file. */
export async function seedWorkspace(): Promise<SeededOperator> {
	const now = Date.now();
	const workspaceId = newId('ws', now);
	await db
		.insert(workspaces)
		.values({ id: workspaceId, slug: workspaceId.toLowerCase(), name: 'Acme', createdAt: now });
	return seedOperator(workspaceId, ['admin']);
}

/** An operator with exactly `permissions` in the workspace, and an active token for it. */
export async function seedOperator(workspaceId: string, permissions: Permission[]): Promise<SeededOperator> {
	const now = Date.now();
	const operatorId = newId('op', now);
	await db.insert(operators).values({
		id: operatorId,
		workspaceId,
		email: `${operatorId.toLowerCase()}@acme.test`,
		name: 'Operator',
		permissions,
		createdAt: now,
	});
	const { token, row } = await newTokenRow(workspaceId, operatorId, now);
	await db.insert(apiTokens).values(row);
	return { workspaceId, operatorId, token };
}

/**
 * Contact custom field definitions written straight to D1 (a widget test's pre-chat field, identify's custom
 * data): `{ plan: ['free', 'pro'] }` defines a select, `{ seats: 'number' }` a field of that type.
 */
export async function seedCustomFields(
	workspaceId: string,
	fields: Record<string, 'text' | 'number' | 'boolean' | 'date' | string[]>,
	entity: 'contact' | 'deal' = 'contact',
): Promise<void> {
	const now = Date.now();
	const rows = Object.entries(fields).map(([key, kind]) => ({
		id: newId('cf', now),
		workspaceId,
		entity,
		key,
		label: key,
		type: Array.isArray(kind) ? ('select' as const) : kind,
		options: Array.isArray(kind) ? kind : null,
		required: false,
		createdAt: now,
		updatedAt: now,
	}));
	for (let i = 0; i < rows.length; i += 8) await db.insert(customFields).values(rows.slice(i, i + 8));
}

/** A contact and an open conversation written straight to D1 (for bulk set-ups such as pagination). */
export async function seedConversation(
	workspaceId: string,
	overrides: Partial<typeof conversations.$inferInsert> = {},
	at = Date.now(),
): Promise<string> {
	const contactId = newId('ctc', at);
	await db.insert(contacts).values({ id: contactId, workspaceId, customFields: {}, createdAt: at, updatedAt: at });
	const id = newId('conv', at);
	await db.insert(conversations).values({
		id,
		workspaceId,
		contactId,
		channel: 'widget',
		status: 'open',
		createdAt: at,
		updatedAt: at,
		statusChangedAt: at,
		lastActivityAt: at,
		...overrides,
	});
	return id;
}

/** Calls the Worker as an API client would. */
export function api(
	token: string | null,
	method: string,
	path: string,
	body?: unknown,
	headers: Record<string, string> = {},
): Promise<Response> {
	const init: RequestInit = { method, headers: { ...headers } };
	if (token !== null) (init.headers as Record<string, string>).Authorization = `Bearer ${token}`;
	if (body !== undefined) {
		(init.headers as Record<string, string>)['Content-Type'] = 'application/json';
		init.body = typeof body === 'string' ? body : JSON.stringify(body);
	}
	return exports.default.fetch(new Request(`https://parley.test${path}`, init));
}

/** The D1 statement count of a response's Server-Timing (`d1;desc="N queries"`), without the timings after it. */
export function d1Timing(res: Response): string | null {
	return /(?:^|, )(d1;desc="[^"]*")/.exec(res.headers.get('Server-Timing') ?? '')?.[1] ?? null;
}

/** Asserts the spec's error body and returns it. */
export async function expectError(res: Response, status: number) {
	const body = (await res.json()) as { error: string; message: string; statusCode: number };
	if (res.status !== status || body.statusCode !== status || typeof body.message !== 'string' || !body.error) {
		throw new Error(`expected error ${status}, got ${res.status}: ${JSON.stringify(body)}`);
	}
	return body;
}

/**
 * What the served API document says of one of an operation's answers: its description and its example's
 * message, to hold against what the server answers (`documentedAnswer('PATCH', '/v3/tasks/{id}', 403)`).
 */
export async function documentedAnswer(method: string, path: string, status: number) {
	type Answer = { description?: string; content?: { 'application/json'?: { example?: { message?: string } } } };
	const doc = (await (await api(null, 'GET', '/v3/openapi.json')).json()) as {
		paths: Record<string, Record<string, { responses: Record<string, Answer> }>>;
	};
	const answer = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
	return { description: answer?.description ?? '', message: answer?.content?.['application/json']?.example?.message };
}

/** A distinct client address per visitor, so per-IP widget limits never leak between tests. */
export function randomIp(): string {
	const [a, b, c] = crypto.getRandomValues(new Uint8Array(3));
	return `10.${a}.${b}.${c}`;
}

/** Calls a public widget endpoint as a visitor's browser would: no Bearer token, maybe a session. */
export function widgetApi(
	method: string,
	path: string,
	body?: unknown,
	session?: string,
	headers: Record<string, string> = {},
): Promise<Response> {
	return api(null, method, path, body, {
		Origin: 'https://shop.example',
		// A fresh address per call unless the test names one: per-IP flood limits stay out of unrelated tests.
		'CF-Connecting-IP': randomIp(),
		...(session ? { 'Parley-Session': session } : {}),
		...headers,
	});
}

export interface Visitor {
	workspaceId: string;
	visitorId: string;
	session: string;
	ip: string;
}

/** A new anonymous visitor session in the workspace. */
export async function startVisitor(workspaceId: string, origin?: Record<string, string>): Promise<Visitor> {
	const ip = randomIp();
	const res = await widgetApi('POST', `/widget/${workspaceId}/sessions`, origin ? { origin } : {}, undefined, {
		'CF-Connecting-IP': ip,
	});
	if (res.status !== 200) throw new Error(`session start failed: ${res.status} ${await res.text()}`);
	const body = (await res.json()) as { visitorId: string; sessionToken: string };
	return { workspaceId, visitorId: body.visitorId, session: body.sessionToken, ip };
}

/** The visitor starts a conversation with a first message; returns the conversation id. */
export async function startVisitorConversation(visitor: Visitor, text = 'Hello', extra: Record<string, unknown> = {}) {
	const res = await widgetApi(
		'POST',
		`/widget/${visitor.workspaceId}/conversations`,
		{ message: { text, clientMessageId: crypto.randomUUID() }, ...extra },
		visitor.session,
		{ 'CF-Connecting-IP': visitor.ip },
	);
	if (res.status !== 201) throw new Error(`conversation start failed: ${res.status} ${await res.text()}`);
	return ((await res.json()) as { conversation: { id: string } }).conversation.id;
}

/** A workspace, an operator token, and a visitor with a conversation (message 1 is the visitor's). */
export async function liveConversation() {
	const { workspaceId, token, operatorId } = await seedWorkspace();
	const visitor = await startVisitor(workspaceId);
	const conversationId = await startVisitorConversation(visitor, 'Hi, I need help');
	return { workspaceId, token, operatorId, visitor, conversationId };
}

/**
 * The limiter counts in fixed minutes of real time. A burst that straddled a minute boundary would see
 * the count restart halfway, so bursts start only with enough of the minute left (waits 8 s at most).
 */
export async function awayFromMinuteBoundary() {
	const left = 60_000 - (Date.now() % 60_000);
	if (left < 8_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** The texts of a conversation's messages, as the API lists them (its first page, oldest first). */
export async function storedTexts(token: string, conversationId: string): Promise<string[]> {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
	return ((await res.json()) as { data: Array<{ text: string }> }).data.map((m) => m.text);
}

/** A conversation's status, as the API reads it. */
export async function conversationStatus(token: string, conversationId: string): Promise<string> {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}`);
	return ((await res.json()) as { status: string }).status;
}

/** The team closes the conversation through the API. */
export async function closeConversation(token: string, conversationId: string): Promise<void> {
	expect((await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { status: 'closed' })).status).toBe(200);
}

/** A visitor's send over HTTP, from the visitor's own address. */
export function visitorSend(visitor: Visitor, conversationId: string, text: string, clientMessageId: string) {
	return widgetApi(
		'POST',
		`/widget/${visitor.workspaceId}/conversations/${conversationId}/messages`,
		{ text, clientMessageId },
		visitor.session,
		{ 'CF-Connecting-IP': visitor.ip },
	);
}

/**
 * Waits until a conversation room has sent everything (nothing left for D1 or the Queue), then drops the
 * outbox timer it keeps for a while after (as its idle timer would, KEEP_WATCHDOG_MS later): from then on
 * the room's alarm is only other timers', and an alarm run finds nothing.
 */
export async function settleRoom(conversationId: string): Promise<void> {
	const room = env.CONVERSATION_ROOM.getByName(conversationId);
	await expect
		.poll(() => runInDurableObject(room, (instance) => (instance as unknown as RoomWithOutbox).outbox.dropWatchdog()))
		.toBe(true);
}

type RoomWithOutbox = { outbox: { dropWatchdog(): Promise<boolean> } };

/**
 * Runs `during` with a D1 table renamed away, as if D1 failed on it, and puts it back whatever happens: how
 * tests make a write or a read of that table fail.
 */
export async function withTableOffline<T>(table: string, during: () => Promise<T>): Promise<T> {
	await env.DB.exec(`ALTER TABLE ${table} RENAME TO ${table}_offline`);
	try {
		return await during();
	} finally {
		await env.DB.exec(`ALTER TABLE ${table}_offline RENAME TO ${table}`);
	}
}

/** An operator's message through the API, which must be stored (201): the stored message. */
export async function reply(token: string, conversationId: string, text: string, idempotencyKey?: string) {
	const headers: Record<string, string> = idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {};
	const res = await api(token, 'POST', '/v3/messages', { conversationId, text }, headers);
	expect(res.status).toBe(201);
	return (await res.json()) as { id: string; seq: number };
}

/**
 * A published scenario (webhook trigger unless `trigger` says otherwise) with one inbound webhook: its id,
 * the webhook and the webhook's secret.
 */
export async function publishedScenario(
	token: string,
	definition: unknown,
	options: { trigger?: unknown; auth?: 'secret' | 'open'; name?: string } = {},
) {
	const created = await api(token, 'POST', '/v3/scenarios', {
		name: options.name ?? 'Scenario',
		definition,
		...(options.trigger === undefined ? {} : { trigger: options.trigger }),
	});
	expect(created.status, await created.clone().text()).toBe(201);
	const scenario = (await created.json()) as { id: string };
	expect((await api(token, 'POST', `/v3/scenarios/${scenario.id}/publish`)).status).toBe(200);
	const hook = await api(token, 'POST', `/v3/scenarios/${scenario.id}/webhooks`, {
		name: 'Hook',
		...(options.auth ? { auth: options.auth } : {}),
	});
	expect(hook.status).toBe(201);
	const webhook = (await hook.json()) as { id: string; url: string; secret: string };
	return { scenarioId: scenario.id, webhook };
}

/** A scenario's run as the API shows it, once `done` holds of it (polled). */
export async function runWhen(
	token: string,
	scenarioId: string,
	runId: string,
	done: (run: { status: string }) => boolean = (run) => run.status === 'succeeded' || run.status === 'failed',
) {
	// Polled in D1, read once through the API: polling the API would spend the token's rate limit.
	await expect
		.poll(async () => {
			const row = await env.DB.prepare('SELECT status FROM scenario_runs WHERE id = ?').bind(runId).first();
			return row !== null && done(row as { status: string });
		})
		.toBe(true);
	const res = await api(token, 'GET', `/v3/scenarios/${scenarioId}/runs/${runId}`);
	expect(res.status).toBe(200);
	return (await res.json()) as Record<string, unknown> & {
		status: string;
		error: string | null;
		variables: Record<string, unknown>;
		log: Array<{ stepId: string; key: string; output?: unknown; error?: string }>;
		retryable: boolean;
	};
}

/** Gives an operator a console password (stored as sign-in would store it). */
export async function seedPassword(workspaceId: string, operatorId: string, password: string): Promise<void> {
	const hash = await hashPassword(password);
	await db.insert(operatorPasswords).values({ operatorId, workspaceId, hash, updatedAt: Date.now() });
}

/** The e-mail `seedOperator` gave an operator. */
export function seededEmail(operatorId: string): string {
	return `${operatorId.toLowerCase()}@acme.test`;
}

export interface ConsoleSignIn {
	/** `__Host-parley_session=<value>`, for a Cookie header. */
	cookie: string;
	csrfToken: string;
}

/** Signs in as the console does (from its own origin) and returns the cookie and CSRF token. */
export async function consoleSignIn(email: string, password: string, workspaceId?: string): Promise<ConsoleSignIn> {
	const res = await api(null, 'POST', '/v3/auth/sign-in', { email, password, workspaceId }, { Origin: CONSOLE_ORIGIN });
	if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
	const cookie = (res.headers.get('Set-Cookie') ?? '').split(';')[0] ?? '';
	const { csrfToken } = (await res.json()) as { csrfToken: string };
	return { cookie, csrfToken };
}

export const CONSOLE_ORIGIN = 'https://parley.test';

/** A request as the console makes it: the session cookie, its own Origin, and the CSRF token. */
export function consoleApi(
	session: ConsoleSignIn,
	method: string,
	path: string,
	body?: unknown,
	headers: Record<string, string> = {},
) {
	return api(null, method, path, body, {
		Cookie: session.cookie,
		Origin: CONSOLE_ORIGIN,
		'X-CSRF-Token': session.csrfToken,
		...headers,
	});
}
