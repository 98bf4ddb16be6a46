import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { signIdentityJwt } from '../src/auth/identity-jwt';
import {
	api,
	awayFromMinuteBoundary,
	expectError,
	randomIp,
	seedCustomFields,
	seedWorkspace,
	startVisitor,
	startVisitorConversation,
	type Visitor,
	widgetApi,
} from './factories';
import { openSocket, tryUpgrade } from './sockets';

interface ContactBody {
	id: string;
	name: string | null;
	email: string | null;
	claimedEmail: string | null;
	verified: boolean;
	externalId: string | null;
	customFields: Record<string, unknown>;
	firstOrigin: Record<string, string> | null;
	lastOrigin: Record<string, string> | null;
}

async function conversationOf(token: string, id: string) {
	const res = await api(token, 'GET', `/v3/conversations/${id}`);
	expect(res.status).toBe(200);
	return (await res.json()) as { contactId: string; origin: Record<string, string | null>; contact: ContactBody };
}

function visitorHeaders(visitor: Visitor) {
	return { 'CF-Connecting-IP': visitor.ip };
}

function identify(visitor: Visitor, body: unknown) {
	return widgetApi('POST', `/widget/${visitor.workspaceId}/identify`, body, visitor.session, visitorHeaders(visitor));
}

async function visitorConversationIds(visitor: Visitor) {
	const res = await widgetApi('GET', `/widget/${visitor.workspaceId}/conversations`, undefined, visitor.session);
	expect(res.status).toBe(200);
	return ((await res.json()) as { data: Array<{ id: string }> }).data.map((c) => c.id).sort();
}

describe('GET /widget/{workspaceId}/config', () => {
	it('serves the public config from KV with an ETag, Cache-Control and open CORS, and 304 when unchanged', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { primaryColor: '#ff0000' });
		const res = await widgetApi('GET', `/widget/${workspaceId}/config`);
		expect(res.status).toBe(200);
		expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
		expect(res.headers.get('Cache-Control')).toContain('max-age=60');
		const etag = res.headers.get('ETag');
		expect(etag).toMatch(/^"\d+"$/);
		const config = (await res.json()) as { workspaceId: string; primaryColor: string; version: number };
		expect(config).toMatchObject({ workspaceId, primaryColor: '#ff0000' });
		expect(await env.WIDGET_CONFIG.get(`widget-config:${workspaceId}`)).not.toBeNull();

		const again = await widgetApi('GET', `/widget/${workspaceId}/config`, undefined, undefined, {
			'If-None-Match': etag as string,
		});
		expect(again.status).toBe(304);

		await api(token, 'PUT', '/v3/widget/settings', { primaryColor: '#00ff00' });
		const changed = await widgetApi('GET', `/widget/${workspaceId}/config`, undefined, undefined, {
			'If-None-Match': etag as string,
		});
		expect(changed.status).toBe(200);
		expect(changed.headers.get('ETag')).not.toBe(etag);
	});

	it('builds the config of a workspace that never saved settings, and 404s an unknown workspace', async () => {
		const { workspaceId } = await seedWorkspace();
		const res = await widgetApi('GET', `/widget/${workspaceId}/config`);
		expect(res.status).toBe(200);
		expect(((await res.json()) as { version: number }).version).toBe(0);
		await expectError(await widgetApi('GET', '/widget/ws_nope/config'), 404);
	});

	it('answers a CORS preflight for the session header', async () => {
		const { workspaceId } = await seedWorkspace();
		const res = await widgetApi('OPTIONS', `/widget/${workspaceId}/sessions`, undefined, undefined, {
			'Access-Control-Request-Method': 'POST',
			'Access-Control-Request-Headers': 'content-type, parley-session',
		});
		expect(res.status).toBe(204);
		expect(res.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('parley-session');
	});
});

describe('POST /widget/{workspaceId}/sessions', () => {
	it('resumes a returning visitor with its conversations, and starts a new one for a bad token', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor);
		const resumed = await widgetApi('POST', `/widget/${workspaceId}/sessions`, { sessionToken: visitor.session });
		expect(await resumed.json()).toMatchObject({
			visitorId: visitor.visitorId,
			resumed: true,
			conversations: [{ id: conversationId }],
		});
		const forged = `${visitor.session.slice(0, -2)}xx`;
		const fresh = (await (
			await widgetApi('POST', `/widget/${workspaceId}/sessions`, { sessionToken: forged })
		).json()) as { visitorId: string; resumed: boolean; conversations: unknown[] };
		expect(fresh.resumed).toBe(false);
		expect(fresh.visitorId).not.toBe(visitor.visitorId);
		expect(fresh.conversations).toEqual([]);
	});

	it('with an identity, starts the session and identifies it in the same request', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { secret } = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const existing = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'alice@example.com' },
			message: { text: 'from the API' },
		});
		const aliceConversation = ((await existing.json()) as { id: string }).id;
		const exp = Math.floor(Date.now() / 1000) + 600;
		const jwt = await signIdentityJwt(secret, { email: 'alice@example.com', external_id: 'u-7', exp });
		const ip = randomIp();
		const res = await widgetApi(
			'POST',
			`/widget/${workspaceId}/sessions`,
			{ identity: { jwt, name: 'Alice' } },
			undefined,
			{ 'CF-Connecting-IP': ip },
		);
		expect(res.status).toBe(200);
		const started = (await res.json()) as { visitorId: string; sessionToken: string };
		// The proven identity's conversations come with the session, without a request of their own.
		expect(started).toMatchObject({
			resumed: false,
			identified: { verified: true, unverifiedReason: null },
			conversations: [{ id: aliceConversation }],
		});
		const alice = { workspaceId, visitorId: started.visitorId, session: started.sessionToken, ip };
		const second = await startVisitorConversation(alice, 'from the widget');
		expect((await conversationOf(token, second)).contact).toMatchObject({
			email: 'alice@example.com',
			externalId: 'u-7',
			name: 'Alice',
			verified: true,
		});
		// A resumed session told an unproven identity: the details land on its contact, marked as claims.
		const resumed = await widgetApi('POST', `/widget/${workspaceId}/sessions`, {
			sessionToken: started.sessionToken,
			identity: { name: 'Alice B.', email: 'other@example.com' },
		});
		expect(await resumed.json()).toMatchObject({ resumed: true, identified: { verified: true } });
		expect((await conversationOf(token, second)).contact).toMatchObject({
			name: 'Alice B.',
			email: 'alice@example.com',
			claimedEmail: 'other@example.com',
		});
	});

	it('answers without `identified` when no identity is sent', async () => {
		const { workspaceId } = await seedWorkspace();
		const res = await widgetApi('POST', `/widget/${workspaceId}/sessions`, {});
		expect(Object.keys((await res.json()) as object).sort()).toEqual([
			'conversations',
			'resumed',
			'sessionToken',
			'visitorId',
		]);
	});

	it('refuses a bad identity in the session start and starts nothing', async () => {
		const { workspaceId } = await seedWorkspace();
		const sessions = () =>
			env.DB.prepare('SELECT COUNT(*) AS n FROM visitor_sessions WHERE workspace_id = ?').bind(workspaceId).first('n');
		for (const [identity, field] of [
			[{ email: 'not-an-email' }, 'json.identity.email'],
			[{ nickname: 'x' }, 'nickname'],
		] as const) {
			const { message } = await expectError(
				await widgetApi('POST', `/widget/${workspaceId}/sessions`, { identity }),
				422,
			);
			expect(message).toContain(field);
		}
		expect(await sessions()).toBe(0);
	});

	it('keeps the session when the identity it carries is refused, and says why in `identified`', async () => {
		const { workspaceId } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'] });
		const first = (await (
			await widgetApi('POST', `/widget/${workspaceId}/sessions`, {
				identity: { name: 'Ana', customData: { plan: 'pro' } },
			})
		).json()) as { sessionToken: string };
		// An attribute the workspace never defined: refused, after the session was resumed.
		const res = await widgetApi('POST', `/widget/${workspaceId}/sessions`, {
			sessionToken: first.sessionToken,
			identity: { name: 'Bia', customData: { plan: 'free', colour: 'red' } },
		});
		expect(res.status).toBe(200);
		const body = (await res.json()) as { sessionToken: string; identified: Record<string, unknown> };
		expect(body.sessionToken).toBe(first.sessionToken);
		expect(body.identified).toMatchObject({ verified: false, unverifiedReason: 'refused' });
		expect(body.identified.refusal).toMatch(/customData\.colour: no custom field "colour"/);
		const contact = await env.DB.prepare(
			'SELECT c.name, c.custom_fields AS f FROM contacts c JOIN visitor_sessions s ON s.contact_id = c.id WHERE s.workspace_id = ?',
		)
			.bind(workspaceId)
			.first<{ name: string; f: string }>();
		expect(contact?.name).toBe('Ana');
		expect(JSON.parse(contact?.f ?? '{}')).toEqual({ plan: 'pro' });
	});

	it('counts only new sessions against the per-IP session limit, not resumes', async () => {
		const { workspaceId } = await seedWorkspace();
		const ip = randomIp();
		const start = (body: object) =>
			widgetApi('POST', `/widget/${workspaceId}/sessions`, body, undefined, { 'CF-Connecting-IP': ip });
		await awayFromMinuteBoundary();
		const first = (await (await start({})).json()) as { sessionToken: string };
		// WIDGET_SESSIONS_PER_IP is 30 in wrangler.toml: 40 page views of one visitor stay well within it.
		for (let i = 0; i < 40; i++) expect((await start({ sessionToken: first.sessionToken })).status).toBe(200);
		for (let i = 0; i < 29; i++) expect((await start({})).status).toBe(200);
		await expectError(await start({}), 429);
		expect((await start({ sessionToken: first.sessionToken })).status).toBe(200);
	});

	it('refuses an unknown workspace and bad origin data', async () => {
		await expectError(await widgetApi('POST', '/widget/ws_missing/sessions', {}), 404);
		const { workspaceId } = await seedWorkspace();
		const bad = await widgetApi('POST', `/widget/${workspaceId}/sessions`, { origin: { landingUrl: 'javascript:x' } });
		expect((await expectError(bad, 422)).message).toContain('json.origin.landingUrl');
	});

	it('ends the session on reset: the token stops working and resuming starts a new visitor', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		await startVisitorConversation(visitor);
		const reset = await widgetApi('POST', `/widget/${workspaceId}/reset`, undefined, visitor.session);
		expect(reset.status).toBe(204);
		await expectError(await widgetApi('GET', `/widget/${workspaceId}/conversations`, undefined, visitor.session), 401);
		const next = (await (
			await widgetApi('POST', `/widget/${workspaceId}/sessions`, { sessionToken: visitor.session })
		).json()) as { resumed: boolean; conversations: unknown[] };
		expect(next).toMatchObject({ resumed: false, conversations: [] });
	});
});

describe('a session token reaches only its own conversations', () => {
	it('gives another visitor 404 for history, sending and the socket, and another workspace 401', async () => {
		const { workspaceId } = await seedWorkspace();
		const alice = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(alice, 'private question');
		const mallory = await startVisitor(workspaceId);
		await startVisitorConversation(mallory, 'decoy');
		const base = `/widget/${workspaceId}/conversations/${conversationId}`;
		await expectError(await widgetApi('GET', `${base}/messages`, undefined, mallory.session), 404);
		await expectError(
			await widgetApi('POST', `${base}/messages`, { text: 'hijack', clientMessageId: 'm1' }, mallory.session),
			404,
		);
		await expectError(await tryUpgrade(`${base}/live?session=${mallory.session}`), 404);
		await expectError(await widgetApi('POST', `${base}/read`, { seq: 1 }, mallory.session), 404);

		const other = await seedWorkspace();
		await expectError(
			await widgetApi('GET', `/widget/${other.workspaceId}/conversations`, undefined, alice.session),
			401,
		);
		await expectError(await widgetApi('GET', `${base}/messages`), 401);

		const own = await widgetApi('GET', `${base}/messages`, undefined, alice.session);
		expect(((await own.json()) as { data: Array<{ text: string }> }).data.map((m) => m.text)).toEqual([
			'private question',
		]);
	});
});

describe('POST /widget/{workspaceId}/conversations', () => {
	it('checks the pre-chat form against the widget settings and changes nothing when it fails', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'] });
		await api(token, 'PUT', '/v3/widget/settings', {
			requiredFields: ['email'],
			customFields: [{ name: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'], required: true }],
		});
		const visitor = await startVisitor(workspaceId);
		const missing = await widgetApi(
			'POST',
			`/widget/${workspaceId}/conversations`,
			{ message: { text: 'hi', clientMessageId: 'a' }, customFields: { plan: 'gold' } },
			visitor.session,
		);
		const { message } = await expectError(missing, 422);
		expect(message).toContain('json.details.email: required');
		expect(message).toContain('json.customFields.plan: must be one of free, pro');
		expect(await visitorConversationIds(visitor)).toEqual([]);

		const id = await startVisitorConversation(visitor, 'hi', {
			details: { email: 'Buyer@Example.com', name: 'Bea' },
			customFields: { plan: 'pro' },
		});
		const conversation = await conversationOf(token, id);
		// A typed address is only claimed: it never makes the visitor findable as that address's owner.
		expect(conversation.contact).toMatchObject({
			email: null,
			claimedEmail: 'buyer@example.com',
			name: 'Bea',
			customFields: { plan: 'pro' },
			verified: false,
		});
	});

	it('takes a required field the visitor already gave (identify) as given', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { requiredFields: ['name', 'email'] });
		const visitor = await startVisitor(workspaceId);
		expect((await identify(visitor, { name: 'Caio', email: 'caio@example.com' })).status).toBe(200);
		const id = await startVisitorConversation(visitor, 'no form needed');
		expect((await conversationOf(token, id)).contact).toMatchObject({ name: 'Caio', claimedEmail: 'caio@example.com' });
	});

	it('accepts answers to page-defined fields the workspace defined, within limits', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { orderId: 'text' });
		const visitor = await startVisitor(workspaceId);
		const id = await startVisitorConversation(visitor, 'hi', { customFields: { orderId: 'A-1001' } });
		expect((await conversationOf(token, id)).contact.customFields).toMatchObject({ orderId: 'A-1001' });
		const tooMany = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`f${i}`, 'x']));
		const res = await widgetApi(
			'POST',
			`/widget/${workspaceId}/conversations`,
			{ message: { text: 'hi', clientMessageId: 'many' }, customFields: tooMany },
			visitor.session,
		);
		expect((await expectError(res, 422)).message).toContain('at most 30 fields');
		const badKey = await widgetApi(
			'POST',
			`/widget/${workspaceId}/conversations`,
			{ message: { text: 'hi', clientMessageId: 'key' }, customFields: { 'no spaces': 'x' } },
			visitor.session,
		);
		await expectError(badKey, 422);
	});

	it('refuses a message over 4,000 characters and limits a visitor to 20 messages a minute', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		// The start and the 20 sends must fall in one fixed minute of the limiter.
		await awayFromMinuteBoundary();
		const id = await startVisitorConversation(visitor);
		const path = `/widget/${workspaceId}/conversations/${id}/messages`;
		const long = await widgetApi('POST', path, { text: 'a'.repeat(4001), clientMessageId: 'long' }, visitor.session);
		expect((await expectError(long, 422)).message).toContain('json.text');

		const statuses: number[] = [];
		for (let i = 0; i < 20; i++) {
			const res = await widgetApi('POST', path, { text: `m${i}`, clientMessageId: `m${i}` }, visitor.session, {
				'CF-Connecting-IP': randomIp(),
			});
			statuses.push(res.status);
		}
		// The conversation start counted as the first message of the minute.
		expect(statuses.filter((s) => s === 201)).toHaveLength(19);
		const limited = await widgetApi('POST', path, { text: 'over', clientMessageId: 'over' }, visitor.session);
		await expectError(limited, 429);
		expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
	});
});

describe('the automatic initial message', () => {
	it('is posted once after the first message of a widget conversation, also when the start is retried', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { autoMessage: 'Thanks! Someone will be with you shortly.' });
		const visitor = await startVisitor(workspaceId);
		const start = () =>
			widgetApi(
				'POST',
				`/widget/${workspaceId}/conversations`,
				{ message: { text: 'Hello', clientMessageId: 'auto-1' } },
				visitor.session,
			);
		const { conversation } = (await (await start()).json()) as { conversation: { id: string } };
		expect((await start()).status).toBe(201);
		const res = await api(token, 'GET', `/v3/conversations/${conversation.id}/messages`);
		const { data } = (await res.json()) as { data: Array<{ text: string; authorKind: string }> };
		expect(data.map((m) => [m.authorKind, m.text])).toEqual([
			['contact', 'Hello'],
			['bot', 'Thanks! Someone will be with you shortly.'],
		]);
	});

	it('is not posted when the setting is empty', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const id = await startVisitorConversation(visitor, 'Just me');
		const res = await api(token, 'GET', `/v3/conversations/${id}/messages`);
		expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(1);
	});
});

describe('retried starts and client ids', () => {
	it('returns the same conversation and message when a visitor retries a start with the same clientMessageId', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const start = () =>
			widgetApi(
				'POST',
				`/widget/${workspaceId}/conversations`,
				{ message: { text: 'first words', clientMessageId: 'first-1' } },
				visitor.session,
			);
		const a = (await (await start()).json()) as { conversation: { id: string }; message: { id: string } };
		const b = (await (await start()).json()) as { conversation: { id: string }; message: { id: string } };
		expect(b.conversation.id).toBe(a.conversation.id);
		expect(b.message.id).toBe(a.message.id);
		expect(await visitorConversationIds(visitor)).toEqual([a.conversation.id]);
	});

	it('returns the same conversation for a POST /v3/conversations retried with its Idempotency-Key', async () => {
		const { token } = await seedWorkspace();
		const body = { contact: { email: 'retry@example.com' }, message: { text: 'hello once' } };
		const first = await api(token, 'POST', '/v3/conversations', body, { 'Idempotency-Key': 'k-1' });
		const again = await api(token, 'POST', '/v3/conversations', body, { 'Idempotency-Key': 'k-1' });
		const a = (await first.json()) as { id: string; lastMessageSeq: number };
		const b = (await again.json()) as { id: string; lastMessageSeq: number };
		expect(again.headers.get('Idempotent-Replayed')).toBe('true');
		expect(b.id).toBe(a.id);
		expect(b.lastMessageSeq).toBe(1);
	});

	it('refuses an Idempotency-Key that already started a conversation with another contact', async () => {
		const { token } = await seedWorkspace();
		const headers = { 'Idempotency-Key': 'welcome' };
		await api(token, 'POST', '/v3/conversations', { contact: { email: 'a@example.com' } }, headers);
		const other = await api(token, 'POST', '/v3/conversations', { contact: { email: 'b@example.com' } }, headers);
		expect((await expectError(other, 422)).message).toContain('another contact');
	});

	it('opens one conversation for two identical starts racing each other', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		await startVisitorConversation(visitor, 'warm up');
		const start = () =>
			widgetApi(
				'POST',
				`/widget/${workspaceId}/conversations`,
				{ message: { text: 'at once', clientMessageId: 'race-1' } },
				visitor.session,
			);
		const answers = await Promise.all([start(), start()]);
		for (const answer of answers) expect([201, 409]).toContain(answer.status);
		const ids = new Set<string>();
		for (const answer of answers.filter((a) => a.status === 201)) {
			ids.add(((await answer.json()) as { conversation: { id: string } }).conversation.id);
		}
		expect(ids.size).toBe(1);
		expect(await visitorConversationIds(visitor)).toHaveLength(2);
	});

	it("shows a visitor its own client ids but never the team's", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const id = await startVisitorConversation(visitor, 'mine');
		await api(token, 'POST', '/v3/messages', { conversationId: id, text: 'team' }, { 'Idempotency-Key': 'crm-77' });
		const history = await widgetApi(
			'GET',
			`/widget/${workspaceId}/conversations/${id}/messages`,
			undefined,
			visitor.session,
		);
		const data = ((await history.json()) as { data: Array<{ text: string; clientMessageId: string | null }> }).data;
		expect(data.map((m) => m.clientMessageId)).toEqual([expect.any(String), null]);
		expect(data[0]?.clientMessageId).not.toContain(':');
	});
});

describe('origin capture', () => {
	it('saves the campaign on the conversation and the contact (first and last touch), filterable in the API', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const campaign = `spring-${crypto.randomUUID().slice(0, 8)}`;
		const visitor = await startVisitor(workspaceId, {
			utmSource: 'google',
			utmMedium: 'cpc',
			utmCampaign: campaign,
			gclid: 'Cj0KCQ-click',
			landingUrl: 'https://shop.example/pricing?utm_source=google',
		});
		const id = await startVisitorConversation(visitor);
		const conversation = await conversationOf(token, id);
		expect(conversation.origin).toMatchObject({ utmSource: 'google', utmCampaign: campaign, gclid: 'Cj0KCQ-click' });
		expect(conversation.contact.firstOrigin).toMatchObject({ utmCampaign: campaign, gclid: 'Cj0KCQ-click' });

		const filtered = await api(token, 'GET', `/v3/conversations?utmCampaign=${campaign}&hasGclid=true`);
		expect(((await filtered.json()) as { data: Array<{ id: string }> }).data.map((c) => c.id)).toEqual([id]);

		// A later visit from another campaign is the last touch; the first touch stays.
		await widgetApi('POST', `/widget/${workspaceId}/sessions`, {
			sessionToken: visitor.session,
			origin: { utmSource: 'newsletter', fbclid: 'fb-1' },
		});
		const contact = (await conversationOf(token, id)).contact;
		expect(contact.firstOrigin).toMatchObject({ utmCampaign: campaign });
		expect(contact.lastOrigin).toEqual({ utmSource: 'newsletter', fbclid: 'fb-1' });
	});
});

describe('POST /widget/{workspaceId}/identify', () => {
	it('stores unverified details on the visitor’s own contact and never takes another contact’s e-mail', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: 'text', seats: 'number', trial: 'boolean' });
		const owner = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'owner@example.com' },
			message: { text: 'account question' },
		});
		const ownerConversation = ((await owner.json()) as { id: string }).id;
		const visitor = await startVisitor(workspaceId);
		const res = await identify(visitor, {
			name: 'Mallory',
			email: 'owner@example.com',
			phone: '+5511999998888',
			customData: { plan: 'pro', seats: 3, trial: false },
		});
		expect(res.status).toBe(200);
		const body = (await res.json()) as { contact: ContactBody; verified: boolean; unverifiedReason: string };
		expect(body).toMatchObject({ verified: false, unverifiedReason: 'no_jwt' });
		expect(body.contact).toMatchObject({
			name: 'Mallory',
			email: null,
			claimedEmail: 'owner@example.com',
			customFields: { plan: 'pro', seats: 3, trial: false },
		});
		expect(await visitorConversationIds(visitor)).not.toContain(ownerConversation);
		const ownerContact = (await conversationOf(token, ownerConversation)).contact;
		expect(ownerContact.name).toBeNull();
	});

	it('rejects each bad field with a clear error and changes nothing', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		for (const [body, field] of [
			[{ email: 'not-an-email' }, 'json.email'],
			[{ phone: '5511' }, 'json.phone'],
			[{ customData: { nested: { a: 1 } } }, 'json.customData.nested'],
			[{ name: '' }, 'json.name'],
			[{ nickname: 'x' }, 'nickname'],
		] as const) {
			const { message } = await expectError(await identify(visitor, body), 422);
			expect(message).toContain(field);
		}
		expect(await visitorConversationIds(visitor)).toEqual([]);
	});

	it('with a valid identity JWT, makes the visitor the verified contact and brings its conversations along', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const secretRes = await api(token, 'POST', '/v3/widget/identity-secret');
		const { secret } = (await secretRes.json()) as { secret: string };
		const existing = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'alice@example.com' },
			message: { text: 'from the API' },
		});
		const aliceConversation = ((await existing.json()) as { id: string }).id;
		const visitor = await startVisitor(workspaceId, { utmSource: 'partner-site' });
		const anonymousConversation = await startVisitorConversation(visitor, 'before login');
		const exp = Math.floor(Date.now() / 1000) + 600;
		const jwt = await signIdentityJwt(secret, { email: 'alice@example.com', external_id: 'u-42', exp });
		const res = await identify(visitor, { jwt, name: 'Alice' });
		const body = (await res.json()) as { contact: ContactBody; verified: boolean };
		expect(body.verified).toBe(true);
		expect(body.contact).toMatchObject({
			email: 'alice@example.com',
			externalId: 'u-42',
			name: 'Alice',
			firstOrigin: { utmSource: 'partner-site' },
		});
		expect(await visitorConversationIds(visitor)).toEqual([aliceConversation, anonymousConversation].sort());

		// Someone else merely typing Alice's e-mail gets none of it.
		const mallory = await startVisitor(workspaceId);
		const claim = (await (await identify(mallory, { email: 'alice@example.com' })).json()) as {
			contact: ContactBody;
		};
		expect(claim.contact.id).not.toBe(body.contact.id);
		expect(claim.contact.claimedEmail).toBe('alice@example.com');
		expect(await visitorConversationIds(mallory)).toEqual([]);
	});

	it('gives a second proven identity on the same browser its own contact, leaving the first one alone', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { secret } = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const exp = Math.floor(Date.now() / 1000) + 600;
		const visitor = await startVisitor(workspaceId);
		const asAna = await identify(visitor, {
			jwt: await signIdentityJwt(secret, { email: 'ana@example.com', external_id: 'ana', exp }),
		});
		const ana = ((await asAna.json()) as { contact: ContactBody }).contact;
		const anaConversation = await startVisitorConversation(visitor, 'Ana asks');
		const asBo = await identify(visitor, {
			jwt: await signIdentityJwt(secret, { email: 'bo@example.com', external_id: 'bo', exp }),
		});
		const bo = ((await asBo.json()) as { contact: ContactBody }).contact;
		expect(bo.id).not.toBe(ana.id);
		expect(bo).toMatchObject({ email: 'bo@example.com', externalId: 'bo', verified: true });
		expect(await visitorConversationIds(visitor)).toEqual([]);
		expect((await conversationOf(token, anaConversation)).contact).toMatchObject({
			id: ana.id,
			email: 'ana@example.com',
			externalId: 'ana',
		});
	});

	it('never lets a visitor who typed an address first into the account of its proven owner', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { secret } = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const mallory = await startVisitor(workspaceId);
		await identify(mallory, { email: 'victim@example.com' });
		const owner = await startVisitor(workspaceId);
		const ownerConversation = await startVisitorConversation(owner, 'my order 1234');
		const exp = Math.floor(Date.now() / 1000) + 600;
		const proven = await identify(owner, { jwt: await signIdentityJwt(secret, { email: 'victim@example.com', exp }) });
		const victim = ((await proven.json()) as { contact: ContactBody }).contact;
		expect(victim).toMatchObject({ email: 'victim@example.com', verified: true });
		expect(await visitorConversationIds(mallory)).toEqual([]);
		expect(await visitorConversationIds(owner)).toEqual([ownerConversation]);

		// An operator writing to that address reaches the owner, not the visitor who typed it.
		const api1 = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'victim@example.com' },
			message: { text: 'your reset code is 991' },
		});
		expect(((await api1.json()) as { contactId: string }).contactId).toBe(victim.id);
		expect(await visitorConversationIds(mallory)).toEqual([]);
	});

	it('does not take the unsigned fields sent along with a valid JWT as proven', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { secret } = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const exp = Math.floor(Date.now() / 1000) + 600;
		const attacker = await startVisitor(workspaceId);
		const res = await identify(attacker, {
			jwt: await signIdentityJwt(secret, { email: 'attacker@example.com', name: 'Signed Name', exp }),
			email: 'victim@example.com',
			name: 'Typed Name',
		});
		const contact = ((await res.json()) as { contact: ContactBody }).contact;
		expect(contact).toMatchObject({
			email: 'attacker@example.com',
			claimedEmail: 'victim@example.com',
			name: 'Signed Name',
		});
		const victim = await startVisitor(workspaceId);
		const later = await identify(victim, { jwt: await signIdentityJwt(secret, { email: 'victim@example.com', exp }) });
		expect(((await later.json()) as { contact: ContactBody }).contact.id).not.toBe(contact.id);
	});

	it('does not adopt by e-mail a contact whose stored external id differs from the JWT’s', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { secret } = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const exp = Math.floor(Date.now() / 1000) + 600;
		const owner = await startVisitor(workspaceId);
		const asOwner = await identify(owner, {
			jwt: await signIdentityJwt(secret, { email: 'shared@example.com', external_id: 'acct-1', exp }),
		});
		const account = ((await asOwner.json()) as { contact: ContactBody }).contact;
		const ownerConversation = await startVisitorConversation(owner, 'about my account');
		for (const claims of [{ email: 'shared@example.com' }, { email: 'shared@example.com', external_id: 'acct-2' }]) {
			const other = await startVisitor(workspaceId);
			const res = await identify(other, { jwt: await signIdentityJwt(secret, { ...claims, exp }) });
			const contact = ((await res.json()) as { contact: ContactBody }).contact;
			expect(contact.id).not.toBe(account.id);
			// The address stays with the account that holds it; the other proof only notes it.
			expect(contact).toMatchObject({ email: null, claimedEmail: 'shared@example.com', verified: true });
			expect(await visitorConversationIds(other)).toEqual([]);
		}
		expect((await conversationOf(token, ownerConversation)).contact).toMatchObject({
			id: account.id,
			email: 'shared@example.com',
			externalId: 'acct-1',
		});
	});

	it("closes a browser's sockets on the previous person's conversations when it proves to be someone else", async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { secret } = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const exp = Math.floor(Date.now() / 1000) + 600;
		const visitor = await startVisitor(workspaceId);
		await identify(visitor, { jwt: await signIdentityJwt(secret, { external_id: 'p1', exp }) });
		const p1Conversation = await startVisitorConversation(visitor, 'p1 here');
		const socket = await openSocket(
			`/widget/${workspaceId}/conversations/${p1Conversation}/live?session=${visitor.session}`,
		);
		await identify(visitor, { jwt: await signIdentityJwt(secret, { external_id: 'p2', exp }) });
		expect(await socket.closed).toBe(4001);
	});

	it('announces a proof once: the same JWT again changes nothing and emits nothing', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const { secret } = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const exp = Math.floor(Date.now() / 1000) + 600;
		const jwt = await signIdentityJwt(secret, { email: 'once@example.com', external_id: 'once', exp });
		const visitor = await startVisitor(workspaceId);
		const first = (await (await identify(visitor, { jwt })).json()) as { contact: ContactBody };
		await identify(visitor, { jwt });
		await identify(visitor, { jwt });
		// A last, different change: once its event is recorded, any duplicate sent before it is too.
		await identify(visitor, { name: 'Sentinel' });
		const updates = async () => {
			const { results } = await env.DB.prepare(
				"SELECT payload FROM events WHERE type = 'contact.updated' AND json_extract(payload, '$.contact.id') = ?",
			)
				.bind(first.contact.id)
				.all<{ payload: string }>();
			return results.map((r) => r.payload);
		};
		await expect.poll(async () => (await updates()).some((p) => p.includes('Sentinel'))).toBe(true);
		const proofs = (await updates()).filter((p) =>
			(JSON.parse(p) as { changed: string[] }).changed.includes('verified'),
		);
		expect(proofs).toHaveLength(1);
	});

	it('treats a JWT signed with another secret, expired, or after rotation as unverified', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const first = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		const exp = Math.floor(Date.now() / 1000) + 600;
		const visitor = await startVisitor(workspaceId);
		const reasonFor = async (jwt: string) =>
			((await (await identify(visitor, { jwt })).json()) as { unverifiedReason: string | null }).unverifiedReason;

		expect(await reasonFor(await signIdentityJwt('pis_guessed', { email: 'a@example.com', exp }))).toBe('signature');
		expect(await reasonFor(await signIdentityJwt(first.secret, { email: 'a@example.com', exp: exp - 3600 }))).toBe(
			'expired',
		);
		const second = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		expect(second.secret).not.toBe(first.secret);
		expect(await reasonFor(await signIdentityJwt(first.secret, { email: 'a@example.com', exp }))).toBe('signature');
		expect((await api(token, 'DELETE', '/v3/widget/identity-secret')).status).toBe(204);
		expect(await reasonFor(await signIdentityJwt(second.secret, { email: 'a@example.com', exp }))).toBe(
			'no_identity_secret',
		);
		const third = (await (await api(token, 'POST', '/v3/widget/identity-secret')).json()) as { secret: string };
		expect([first.secret, second.secret]).not.toContain(third.secret);
	});
});
