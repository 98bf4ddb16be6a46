import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/auth/token';
import { consoleSessions, operatorPasswords, operators, tags, workspaces } from '../src/db/schema';
import { EMAIL_POLICY } from '../src/domain/team/sign-in-throttle';
import { newId } from '../src/lib/ids';
import {
	api,
	CONSOLE_ORIGIN,
	consoleApi,
	consoleSignIn,
	db,
	documentedAnswer,
	expectError,
	randomIp,
	seededEmail,
	seedOperator,
	seedPassword,
	seedWorkspace,
} from './factories';
import { openSocket, tryUpgrade } from './sockets';

const PASSWORD = 'correct horse battery';

/** An admin who can sign in to the console, with its token for comparison. */
async function consoleAdmin() {
	const admin = await seedWorkspace();
	await seedPassword(admin.workspaceId, admin.operatorId, PASSWORD);
	return { ...admin, email: seededEmail(admin.operatorId) };
}

function signIn(email: string, password: string, headers: Record<string, string> = {}) {
	return api(null, 'POST', '/v3/auth/sign-in', { email, password }, { Origin: CONSOLE_ORIGIN, ...headers });
}

async function tagNames(workspaceId: string): Promise<string[]> {
	const rows = await db.select({ name: tags.name }).from(tags).where(eq(tags.workspaceId, workspaceId));
	return rows.map((r) => r.name);
}

describe("a console session's last sight", () => {
	it('is noted when the session is used more than five minutes after it was last seen', async () => {
		const admin = await consoleAdmin();
		const session = await consoleSignIn(admin.email, PASSWORD);
		const long = Date.now() - 10 * 60_000;
		const ofTheSession = and(
			eq(consoleSessions.workspaceId, admin.workspaceId),
			eq(consoleSessions.operatorId, admin.operatorId),
		);
		await db.update(consoleSessions).set({ lastSeenAt: long }).where(ofTheSession);
		const before = Date.now();
		expect((await consoleApi(session, 'GET', '/v3/me')).status).toBe(200);
		// The note is not waited for by the answer: it lands a moment later.
		await expect
			.poll(
				async () =>
					(await db.select({ at: consoleSessions.lastSeenAt }).from(consoleSessions).where(ofTheSession).get())?.at,
			)
			.toBeGreaterThanOrEqual(before);
	});
});

describe('console sign-in', () => {
	it('sets an HttpOnly, Secure, SameSite=Lax host cookie and answers who signed in, with a CSRF token', async () => {
		const admin = await consoleAdmin();
		const res = await signIn(admin.email.toUpperCase(), PASSWORD);
		expect(res.status).toBe(200);
		const cookie = res.headers.get('Set-Cookie') ?? '';
		expect(cookie).toMatch(/^__Host-parley_session=pses_[0-9A-Za-z]{43}; /);
		for (const attribute of ['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure', `Max-Age=${30 * 86_400}`]) {
			expect(cookie).toContain(attribute);
		}
		const body = (await res.json()) as Record<string, unknown>;
		expect(body).toMatchObject({
			operator: { id: admin.operatorId, email: admin.email },
			workspace: { id: admin.workspaceId, name: 'Acme' },
			permissions: ['admin'],
		});
		expect(body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
		// Only the hash of the cookie's value is stored.
		const value = cookie.split(';')[0]?.split('=')[1] ?? '';
		const [row] = await db.select().from(consoleSessions).where(eq(consoleSessions.operatorId, admin.operatorId));
		expect(row?.tokenHash).toBe(await sha256Hex(value));
	});

	it('answers a wrong password, an unknown e-mail and a member without a password alike', async () => {
		const admin = await consoleAdmin();
		const noPassword = await seedOperator(admin.workspaceId, ['conversations:read']);
		const ip = randomIp();
		const responses = [
			await signIn(admin.email, 'not the password', { 'CF-Connecting-IP': ip }),
			await signIn(`nobody-${newId('x')}@acme.test`, PASSWORD, { 'CF-Connecting-IP': ip }),
			await signIn(seededEmail(noPassword.operatorId), PASSWORD, { 'CF-Connecting-IP': ip }),
		];
		const answers = await Promise.all(
			responses.map(async (res) => ({
				status: res.status,
				body: await res.json(),
				cookie: res.headers.get('Set-Cookie'),
			})),
		);
		for (const answer of answers) {
			expect(answer).toEqual({
				status: 401,
				body: { statusCode: 401, error: 'Unauthorized', message: 'Wrong e-mail or password.' },
				cookie: null,
			});
		}
		expect(await db.select().from(consoleSessions).where(eq(consoleSessions.workspaceId, admin.workspaceId))).toEqual(
			[],
		);
	});

	it('refuses a disabled member and a sign-in posted from another site', async () => {
		const admin = await consoleAdmin();
		const foreign = await signIn(admin.email, PASSWORD, { Origin: 'https://evil.example' });
		const refusal = await expectError(foreign, 403);
		// The document says why (no permission is involved), as the server words it; setting a password alike.
		for (const path of ['/v3/auth/sign-in', '/v3/auth/set-password']) {
			const documented = await documentedAnswer('POST', path, 403);
			expect(documented.description).toMatch(/^The request came from a page of another origin than the console’s own/);
			expect(documented.message).toBe(refusal.message);
		}
		const member = await seedOperator(admin.workspaceId, ['conversations:read']);
		await seedPassword(admin.workspaceId, member.operatorId, PASSWORD);
		await db.update(operators).set({ disabledAt: Date.now() }).where(eq(operators.id, member.operatorId));
		await expectError(await signIn(seededEmail(member.operatorId), PASSWORD), 401);
	});

	it('backs off after a few failures for an e-mail, whether it exists or not, even for the right password', async () => {
		const admin = await consoleAdmin();
		const unknown = `nobody-${newId('x')}@acme.test`;
		for (const email of [admin.email, unknown]) {
			for (let i = 0; i < EMAIL_POLICY.free; i++) {
				await expectError(await signIn(email, 'wrong password', { 'CF-Connecting-IP': randomIp() }), 401);
			}
			const throttled = await signIn(email, PASSWORD, { 'CF-Connecting-IP': randomIp() });
			const body = await expectError(throttled, 429);
			expect(body.message).toMatch(/^Too many failed sign-ins: try again in \d+ s\.$/);
			expect(Number(throttled.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
		}
	});

	it('locks an e-mail for 15 minutes after ten failures, as its object’s storage records them', async () => {
		const admin = await consoleAdmin();
		const key = await sha256Hex(`sign-in:${admin.email}`);
		const limiter = env.RATE_LIMITER.getByName(`sign-in:${key}`);
		await runInDurableObject(limiter, async (_instance, state) => {
			await state.storage.put('sign-in', { failures: EMAIL_POLICY.lockAt, lastFailureAt: Date.now() - 60_000 });
		});
		const res = await signIn(admin.email, PASSWORD);
		await expectError(res, 429);
		const retryAfter = Number(res.headers.get('Retry-After'));
		expect(retryAfter).toBeGreaterThan(13 * 60);
		expect(retryAfter).toBeLessThanOrEqual(14 * 60);
	});

	it('locks a client address that fails for many e-mails', async () => {
		const ip = randomIp();
		const limiter = env.RATE_LIMITER.getByName(`sign-in-address:${ip}`);
		await runInDurableObject(limiter, async (_instance, state) => {
			await state.storage.put('sign-in', { failures: 50, lastFailureAt: Date.now() });
		});
		const admin = await consoleAdmin();
		await expectError(await signIn(admin.email, PASSWORD, { 'CF-Connecting-IP': ip }), 429);
		expect((await signIn(admin.email, PASSWORD, { 'CF-Connecting-IP': randomIp() })).status).toBe(200);
	});

	it('asks which workspace when one password opens several, then signs in to the one named', async () => {
		const first = await consoleAdmin();
		const now = Date.now();
		const otherWorkspace = newId('ws', now);
		await db
			.insert(workspaces)
			.values({ id: otherWorkspace, slug: otherWorkspace.toLowerCase(), name: 'Acme Brasil', createdAt: now });
		const otherOperator = newId('op', now);
		await db.insert(operators).values({
			id: otherOperator,
			workspaceId: otherWorkspace,
			email: first.email,
			name: 'Ana',
			permissions: ['conversations:read'],
			createdAt: now + 1,
		});
		await seedPassword(otherWorkspace, otherOperator, PASSWORD);
		const res = await signIn(first.email, PASSWORD);
		expect(res.status).toBe(300);
		expect(await res.json()).toEqual({
			workspaces: [
				{ id: first.workspaceId, name: 'Acme' },
				{ id: otherWorkspace, name: 'Acme Brasil' },
			],
		});
		expect(res.headers.get('Set-Cookie')).toBeNull();
		const session = await consoleSignIn(first.email, PASSWORD, otherWorkspace);
		const me = await consoleApi(session, 'GET', '/v3/auth/session');
		expect(await me.json()).toMatchObject({ workspace: { id: otherWorkspace }, operator: { id: otherOperator } });
	});

	it('re-hashes a password stored with an older iteration count on the next good sign-in', async () => {
		const admin = await seedWorkspace();
		const salt = new Uint8Array(16);
		const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(PASSWORD), 'PBKDF2', false, [
			'deriveBits',
		]);
		const bits = new Uint8Array(
			await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations: 100_000 }, key, 256),
		);
		const b64 = (bytes: Uint8Array) =>
			btoa(String.fromCharCode(...bytes))
				.replaceAll('+', '-')
				.replaceAll('/', '_')
				.replace(/=+$/, '');
		await db.insert(operatorPasswords).values({
			operatorId: admin.operatorId,
			workspaceId: admin.workspaceId,
			hash: `pbkdf2-sha256$100000$${b64(salt)}$${b64(bits)}`,
			updatedAt: 0,
		});
		await consoleSignIn(seededEmail(admin.operatorId), PASSWORD);
		const [row] = await db.select().from(operatorPasswords).where(eq(operatorPasswords.operatorId, admin.operatorId));
		expect(row?.hash).toMatch(/^pbkdf2-sha256\$600000\$/);
		await consoleSignIn(seededEmail(admin.operatorId), PASSWORD);
	});
});

describe('the console session on /v3', () => {
	it('acts with the operator’s permissions, and its requests never carry a token', async () => {
		const admin = await consoleAdmin();
		const reader = await seedOperator(admin.workspaceId, ['conversations:read']);
		await seedPassword(admin.workspaceId, reader.operatorId, PASSWORD);
		const session = await consoleSignIn(seededEmail(reader.operatorId), PASSWORD);
		const list = await consoleApi(session, 'GET', '/v3/conversations');
		expect(list.status).toBe(200);
		expect(list.headers.get('RateLimit-Policy')).toBe('"per-session";q=600;w=60');
		await expectError(await consoleApi(session, 'GET', '/v3/team/members'), 403);
		const me = (await (await consoleApi(session, 'GET', '/v3/me')).json()) as Record<string, unknown>;
		expect(me).toMatchObject({
			operator: { id: reader.operatorId },
			via: 'session',
			token: { id: expect.any(String) },
		});
	});

	it('is refused from another origin, and without an origin at all', async () => {
		const admin = await consoleAdmin();
		const session = await consoleSignIn(admin.email, PASSWORD);
		const cross = await api(null, 'GET', '/v3/conversations', undefined, {
			Cookie: session.cookie,
			Origin: 'https://evil.example',
		});
		await expectError(cross, 403);
		const crossSite = await api(null, 'GET', '/v3/conversations', undefined, {
			Cookie: session.cookie,
			'Sec-Fetch-Site': 'cross-site',
		});
		await expectError(crossSite, 403);
		await expectError(await api(null, 'GET', '/v3/conversations', undefined, { Cookie: session.cookie }), 403);
		// A same-origin GET (a browser sends no Origin on one) is told apart by Sec-Fetch-Site.
		const sameOrigin = await api(null, 'GET', '/v3/conversations', undefined, {
			Cookie: session.cookie,
			'Sec-Fetch-Site': 'same-origin',
		});
		expect(sameOrigin.status).toBe(200);
	});

	it('refuses a state-changing request without the right CSRF token, and changes nothing', async () => {
		const admin = await consoleAdmin();
		const session = await consoleSignIn(admin.email, PASSWORD);
		const missing = await consoleApi(session, 'POST', '/v3/tags', { name: 'vip' }, { 'X-CSRF-Token': '' });
		expect((await expectError(missing, 403)).message).toBe('Missing or wrong X-CSRF-Token header: reload the console.');
		const other = await consoleSignIn(admin.email, PASSWORD);
		await expectError(
			await consoleApi(session, 'POST', '/v3/tags', { name: 'vip' }, { 'X-CSRF-Token': other.csrfToken }),
			403,
		);
		expect(await tagNames(admin.workspaceId)).toEqual([]);
		expect((await consoleApi(session, 'POST', '/v3/tags', { name: 'vip' })).status).toBe(201);
		expect(await tagNames(admin.workspaceId)).toEqual(['vip']);
	});

	it('ends at once when an admin revokes it, when it signs out, and when its member is disabled', async () => {
		const admin = await consoleAdmin();
		const member = await seedOperator(admin.workspaceId, ['conversations:read']);
		await seedPassword(admin.workspaceId, member.operatorId, PASSWORD);
		const memberEmail = seededEmail(member.operatorId);

		const revoked = await consoleSignIn(memberEmail, PASSWORD);
		expect((await consoleApi(revoked, 'GET', '/v3/conversations')).status).toBe(200);
		const list = await api(admin.token, 'GET', `/v3/team/sessions?operatorId=${member.operatorId}&active=true`);
		const { data } = (await list.json()) as { data: Array<{ id: string; current: boolean }> };
		expect(data).toHaveLength(1);
		expect((await api(admin.token, 'DELETE', `/v3/team/sessions/${data[0]?.id}`)).status).toBe(204);
		const after = await consoleApi(revoked, 'GET', '/v3/conversations');
		expect((await expectError(after, 401)).message).toBe('The console session has ended: sign in again.');

		const signedOut = await consoleSignIn(memberEmail, PASSWORD);
		const out = await consoleApi(signedOut, 'DELETE', '/v3/auth/session');
		expect(out.status).toBe(204);
		expect(out.headers.get('Set-Cookie')).toContain('Max-Age=0');
		await expectError(await consoleApi(signedOut, 'GET', '/v3/conversations'), 401);

		const disabled = await consoleSignIn(memberEmail, PASSWORD);
		expect((await consoleApi(disabled, 'GET', '/v3/conversations')).status).toBe(200);
		expect((await api(admin.token, 'PATCH', `/v3/team/members/${member.operatorId}`, { disabled: true })).status).toBe(
			200,
		);
		await expectError(await consoleApi(disabled, 'GET', '/v3/conversations'), 401);
	});

	it('stays ended when the disabled member is enabled again: disabling ends its sessions, not pauses them', async () => {
		const admin = await consoleAdmin();
		const member = await seedOperator(admin.workspaceId, ['conversations:read']);
		await seedPassword(admin.workspaceId, member.operatorId, PASSWORD);
		const old = await consoleSignIn(seededEmail(member.operatorId), PASSWORD);
		expect((await consoleApi(old, 'GET', '/v3/conversations')).status).toBe(200);
		const path = `/v3/team/members/${member.operatorId}`;
		expect((await api(admin.token, 'PATCH', path, { disabled: true })).status).toBe(200);
		expect((await api(admin.token, 'PATCH', path, { disabled: false })).status).toBe(200);

		const after = await consoleApi(old, 'GET', '/v3/conversations');
		expect((await expectError(after, 401)).message).toBe('The console session has ended: sign in again.');
		const list = await api(admin.token, 'GET', `/v3/team/sessions?operatorId=${member.operatorId}&active=true`);
		expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
		// Signing in again works: the member is enabled, only its old sessions ended.
		const fresh = await consoleSignIn(seededEmail(member.operatorId), PASSWORD);
		expect((await consoleApi(fresh, 'GET', '/v3/conversations')).status).toBe(200);
	});

	it('lets an admin revoke only its own workspace’s sessions', async () => {
		const admin = await consoleAdmin();
		const other = await consoleAdmin();
		const session = await consoleSignIn(other.email, PASSWORD);
		const [row] = await db.select().from(consoleSessions).where(eq(consoleSessions.operatorId, other.operatorId));
		await expectError(await api(admin.token, 'DELETE', `/v3/team/sessions/${row?.id}`), 404);
		expect((await consoleApi(session, 'GET', '/v3/conversations')).status).toBe(200);
	});

	it('regenerates the operator’s token from the console: the old token is refused at once', async () => {
		const admin = await consoleAdmin();
		const session = await consoleSignIn(admin.email, PASSWORD);
		const res = await consoleApi(session, 'POST', '/v3/tokens/regenerate');
		expect(res.status).toBe(201);
		const { token } = (await res.json()) as { token: string };
		await expectError(await api(admin.token, 'GET', '/v3/me'), 401);
		expect((await api(token, 'GET', '/v3/me')).status).toBe(200);
		expect((await consoleApi(session, 'GET', '/v3/conversations')).status).toBe(200);
	});
});

describe('the console session on the live sockets', () => {
	it('opens the feed and a conversation socket with the cookie, and sends on the session’s own budget', async () => {
		const admin = await consoleAdmin();
		const session = await consoleSignIn(admin.email, PASSWORD);
		const cookie = { Cookie: session.cookie, Origin: CONSOLE_ORIGIN, 'Sec-WebSocket-Protocol': 'parley.v1' };
		const conversation = await api(admin.token, 'POST', '/v3/conversations', {
			contact: { email: 'ana@example.com' },
			message: { text: 'Hello', author: 'contact' },
		});
		const { id } = (await conversation.json()) as { id: string };
		const feed = await openSocket('/v3/live', cookie);
		await feed.next('presence');
		const room = await openSocket(`/v3/conversations/${id}/live`, cookie);
		await room.next('synced');
		// More sends than a token's budget in the tests (40 a minute): the session's own (600) applies.
		for (let i = 0; i < 45; i++) room.send({ type: 'message', text: `reply ${i}`, clientMessageId: `c${i}` });
		await room.next('ack', (frame) => frame.clientMessageId === 'c44');
		expect(room.frames.filter((frame) => frame.type === 'error')).toEqual([]);
		const refused = await tryUpgrade('/v3/live', { ...cookie, Origin: 'https://evil.example' });
		expect(refused.status).toBe(403);
		feed.close();
		room.close();
	});
});

describe('password links', () => {
	it('invites a member: the link sets the password once and signs in; it cannot be used again', async () => {
		const admin = await consoleAdmin();
		const member = await seedOperator(admin.workspaceId, ['conversations:read']);
		const made = await api(admin.token, 'POST', `/v3/team/members/${member.operatorId}/password-link`);
		expect(made.status).toBe(201);
		const link = (await made.json()) as { url: string; purpose: string; expiresAt: string };
		expect(link.purpose).toBe('invite');
		expect(link.url).toMatch(/^https:\/\/parley\.test\/console\/set-password#token=ppl_[0-9A-Za-z]{43}$/);
		expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
		const token = link.url.split('#token=')[1] ?? '';

		const short = await api(
			null,
			'POST',
			'/v3/auth/set-password',
			{ token, password: 'short' },
			{ Origin: CONSOLE_ORIGIN },
		);
		expect((await expectError(short, 422)).message).toContain('password');
		const set = await api(
			null,
			'POST',
			'/v3/auth/set-password',
			{ token, password: PASSWORD },
			{ Origin: CONSOLE_ORIGIN },
		);
		expect(set.status).toBe(200);
		expect(set.headers.get('Set-Cookie')).toMatch(/^__Host-parley_session=pses_/);
		const again = await api(
			null,
			'POST',
			'/v3/auth/set-password',
			{ token, password: 'another long password' },
			{ Origin: CONSOLE_ORIGIN },
		);
		expect((await expectError(again, 422)).message).toContain(
			'This link has expired or was already used: ask an admin for a new one.',
		);
		await consoleSignIn(seededEmail(member.operatorId), PASSWORD);
	});

	it('resets a password: the older link dies, the member’s other sessions end, the new password works', async () => {
		const admin = await consoleAdmin();
		const earlier = await consoleSignIn(admin.email, PASSWORD);
		const first = (await (
			await api(admin.token, 'POST', `/v3/team/members/${admin.operatorId}/password-link`)
		).json()) as { url: string; purpose: string };
		expect(first.purpose).toBe('reset');
		const second = (await (
			await api(admin.token, 'POST', `/v3/team/members/${admin.operatorId}/password-link`)
		).json()) as { url: string };
		const token = (url: string) => url.split('#token=')[1] ?? '';
		const stale = await api(
			null,
			'POST',
			'/v3/auth/set-password',
			{ token: token(first.url), password: 'a new long password' },
			{ Origin: CONSOLE_ORIGIN },
		);
		await expectError(stale, 422);
		const reset = await api(
			null,
			'POST',
			'/v3/auth/set-password',
			{ token: token(second.url), password: 'a new long password' },
			{ Origin: CONSOLE_ORIGIN },
		);
		expect(reset.status).toBe(200);
		await expectError(await consoleApi(earlier, 'GET', '/v3/conversations'), 401);
		await expectError(await signIn(admin.email, PASSWORD, { 'CF-Connecting-IP': randomIp() }), 401);
		await consoleSignIn(admin.email, 'a new long password');
	});

	it('is made by admins only, for members of their own workspace', async () => {
		const admin = await consoleAdmin();
		const reader = await seedOperator(admin.workspaceId, ['conversations:read']);
		const other = await seedWorkspace();
		await expectError(await api(reader.token, 'POST', `/v3/team/members/${admin.operatorId}/password-link`), 403);
		await expectError(await api(admin.token, 'POST', `/v3/team/members/${other.operatorId}/password-link`), 404);
	});

	it('changes one’s own password with the current one, ending the other sessions but not this one', async () => {
		const admin = await consoleAdmin();
		const here = await consoleSignIn(admin.email, PASSWORD);
		const elsewhere = await consoleSignIn(admin.email, PASSWORD);
		const wrong = await consoleApi(here, 'PUT', '/v3/auth/password', {
			currentPassword: 'nope',
			newPassword: 'a new long password',
		});
		await expectError(wrong, 422);
		const changed = await consoleApi(here, 'PUT', '/v3/auth/password', {
			currentPassword: PASSWORD,
			newPassword: 'a new long password',
		});
		expect(changed.status).toBe(204);
		expect((await consoleApi(here, 'GET', '/v3/conversations')).status).toBe(200);
		await expectError(await consoleApi(elsewhere, 'GET', '/v3/conversations'), 401);
		const stored = await db
			.select()
			.from(operatorPasswords)
			.where(
				and(eq(operatorPasswords.workspaceId, admin.workspaceId), eq(operatorPasswords.operatorId, admin.operatorId)),
			);
		expect(stored).toHaveLength(1);
	});
});
