import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Permission } from '../src/auth/permissions';
import { contacts, conversations } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import { api, db, expectError, seedOperator, seedWorkspace } from './factories';

/** Everything a writer without conversations:read must not learn about the contact or the visit. */
const SECRETS = ['vip@example.com', '+5511988887777', 'Vera Private', 'platinum', 'https://shop.example/secret-offer'];

const RECEIPT_KEYS = [
	'assigneeId',
	'channel',
	'createdAt',
	'groupId',
	'id',
	'lastActivityAt',
	'status',
	'updatedAt',
	'workspaceId',
].sort();

/** A workspace with a known contact (details, custom field) and its conversation (with a landing URL). */
async function seedKnownContact() {
	const workspace = await seedWorkspace();
	const now = Date.now();
	const contactId = newId('ctc', now);
	await db.insert(contacts).values({
		id: contactId,
		workspaceId: workspace.workspaceId,
		name: 'Vera Private',
		email: 'vip@example.com',
		phone: '+5511988887777',
		customFields: { tier: 'platinum' },
		createdAt: now,
		updatedAt: now,
	});
	const conversationId = newId('conv', now);
	await db.insert(conversations).values({
		id: conversationId,
		workspaceId: workspace.workspaceId,
		contactId,
		channel: 'widget',
		status: 'open',
		landingUrl: 'https://shop.example/secret-offer',
		createdAt: now,
		updatedAt: now,
		statusChangedAt: now,
		lastActivityAt: now,
	});
	return { ...workspace, contactId, conversationId };
}

const ROLES: Array<{ name: string; permissions: Permission[] }> = [
	{ name: 'no permission', permissions: [] },
	{ name: 'conversations:read only', permissions: ['conversations:read'] },
	{ name: 'messages:send only', permissions: ['messages:send'] },
	{ name: 'conversations:read and messages:send', permissions: ['conversations:read', 'messages:send'] },
	{ name: 'admin', permissions: ['admin'] },
];

const may = (permissions: Permission[], needed: Permission) =>
	permissions.includes('admin') || permissions.includes(needed);

function expectReceipt(body: Record<string, unknown>, text: string) {
	expect(Object.keys(body).sort()).toEqual(RECEIPT_KEYS);
	for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe.each(ROLES)('write answers for a token with $name', ({ permissions }) => {
	it('POST /v3/conversations: the contact only to a reader, else a receipt; 403 without messages:send', async () => {
		const { workspaceId, contactId } = await seedKnownContact();
		const { token } = await seedOperator(workspaceId, permissions);
		const before = await db.select().from(conversations).where(eq(conversations.contactId, contactId));
		const res = await api(token, 'POST', '/v3/conversations', {
			contact: { email: 'vip@example.com' },
			message: { text: 'Your order shipped' },
		});
		if (!may(permissions, 'messages:send')) {
			await expectError(res, 403);
			expect(await db.select().from(conversations).where(eq(conversations.contactId, contactId))).toEqual(before);
			return;
		}
		expect(res.status).toBe(201);
		const text = await res.text();
		const body = JSON.parse(text) as Record<string, unknown>;
		if (may(permissions, 'conversations:read')) {
			expect(body).toMatchObject({ contactId, contact: { email: 'vip@example.com', name: 'Vera Private' } });
		} else {
			expectReceipt(body, text);
			expect(text).not.toContain(contactId);
		}
	});

	it('PATCH /v3/conversations/{id}: the contact and origin only to a reader, else a receipt', async () => {
		const { workspaceId, conversationId } = await seedKnownContact();
		const { token } = await seedOperator(workspaceId, permissions);
		const res = await api(token, 'PATCH', `/v3/conversations/${conversationId}`, { status: 'pending' });
		if (!may(permissions, 'messages:send')) {
			await expectError(res, 403);
			return;
		}
		expect(res.status).toBe(200);
		const text = await res.text();
		const body = JSON.parse(text) as Record<string, unknown>;
		expect(body).toMatchObject({ id: conversationId, status: 'pending' });
		if (may(permissions, 'conversations:read')) {
			expect(body).toMatchObject({
				contact: { phone: '+5511988887777', customFields: { tier: 'platinum' } },
				origin: { landingUrl: 'https://shop.example/secret-offer' },
			});
		} else {
			expectReceipt(body, text);
		}
	});

	it('POST /v3/messages: the stored message, which holds nothing about the contact', async () => {
		const { workspaceId, conversationId } = await seedKnownContact();
		const { token } = await seedOperator(workspaceId, permissions);
		const res = await api(token, 'POST', '/v3/messages', { conversationId, text: 'On its way' });
		if (!may(permissions, 'messages:send')) {
			await expectError(res, 403);
			return;
		}
		expect(res.status).toBe(201);
		const text = await res.text();
		expect(JSON.parse(text)).toMatchObject({ conversationId, text: 'On its way', authorKind: 'operator' });
		for (const secret of SECRETS) expect(text).not.toContain(secret);
	});

	it('POST /v3/conversations/{id}/read: only a reader, answered with the read position alone', async () => {
		const { workspaceId, conversationId } = await seedKnownContact();
		const { token } = await seedOperator(workspaceId, permissions);
		const res = await api(token, 'POST', `/v3/conversations/${conversationId}/read`, { seq: 0 });
		if (!may(permissions, 'conversations:read')) {
			await expectError(res, 403);
			return;
		}
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ conversationId, readSeq: 0 });
	});

	it('PUT /v3/widget/settings and POST /v3/widget/identity-secret: admins only', async () => {
		const { workspaceId } = await seedKnownContact();
		const { token } = await seedOperator(workspaceId, permissions);
		const settings = await api(token, 'PUT', '/v3/widget/settings', { ctaText: 'Ask us' });
		const secret = await api(token, 'POST', '/v3/widget/identity-secret');
		if (!may(permissions, 'admin')) {
			await expectError(settings, 403);
			await expectError(secret, 403);
			return;
		}
		expect(settings.status).toBe(200);
		expect(await settings.json()).toMatchObject({ ctaText: 'Ask us' });
		expect(secret.status).toBe(200);
	});
});
