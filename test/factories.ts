import { env, exports } from 'cloudflare:workers';
import type { Permission } from '../src/auth/permissions';
import { openDatabase } from '../src/db/client';
import { apiTokens, contacts, conversations, operators, workspaces } from '../src/db/schema';
import { newTokenRow } from '../src/domain/team';
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
		groups: [],
		createdAt: now,
	});
	const { token, row } = await newTokenRow(workspaceId, operatorId, now);
	await db.insert(apiTokens).values(row);
	return { workspaceId, operatorId, token };
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

/** Asserts the spec's error body and returns it. */
export async function expectError(res: Response, status: number) {
	const body = (await res.json()) as { error: string; message: string; statusCode: number };
	if (res.status !== status || body.statusCode !== status || typeof body.message !== 'string' || !body.error) {
		throw new Error(`expected error ${status}, got ${res.status}: ${JSON.stringify(body)}`);
	}
	return body;
}
