import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { replyLocalPart } from '../src/auth/mail-reply-token';
import { contacts, mailDeliveries, mailThreads } from '../src/db/schema';
import { newId } from '../src/lib/ids';
import { deliver, lastMail, mailWorkspace, receivedMails } from './email-inbound-helpers';
import { api, db, startVisitor, startVisitorConversation, storedTexts } from './factories';
import { bounceMail, gmailMail, newMessageId, newsletterMail, vacationMail } from './mail-samples';

/** The workspace is always closed and a rule answers every customer message then: a message would fire it. */
async function answeringRule(token: string): Promise<string> {
	const closed = {
		enabled: true,
		timeZone: 'UTC',
		weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
		holidays: [],
	};
	expect((await api(token, 'PUT', '/v3/widget/settings', { businessHours: closed })).status).toBe(200);
	const res = await api(token, 'POST', '/v3/automation-rules', {
		name: 'Auto-answer',
		trigger: { kind: 'message_outside_hours' },
		actions: [{ type: 'send_message', text: 'We are closed.' }],
	});
	expect(res.status).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

async function executions(ruleId: string): Promise<number> {
	const row = await env.DB.prepare('SELECT count(*) AS n FROM rule_executions WHERE rule_id = ?')
		.bind(ruleId)
		.first<{ n: number }>();
	return row?.n ?? 0;
}

async function customerMessageEvents(workspaceId: string): Promise<number> {
	const row = await env.DB.prepare(
		"SELECT count(*) AS n FROM events WHERE workspace_id = ? AND type = 'message.created' AND json_extract(payload, '$.message.authorKind') = 'contact'",
	)
		.bind(workspaceId)
		.first<{ n: number }>();
	return row?.n ?? 0;
}

describe('machine mail', () => {
	it('auto-replies and bulk mail are stored and marked, never posted, and fire no rule', async () => {
		const ws = await mailWorkspace();
		const ruleId = await answeringRule(ws.token);
		const first = newMessageId();
		await deliver(gmailMail({ to: ws.inbox, messageId: first }), { from: 'ana.souza@gmail.com', to: ws.inbox });
		const conversationId = (await lastMail(ws.token)).conversationId ?? '';
		// The person's mail fires the rule once: the rule works.
		await expect.poll(() => storedTexts(ws.token, conversationId)).toContain('We are closed.');
		const before = await storedTexts(ws.token, conversationId);

		await deliver(vacationMail({ to: ws.inbox, inReplyTo: first, references: [first] }), {
			from: 'ana.souza@gmail.com',
			to: ws.inbox,
		});
		const vacation = await lastMail(ws.token);
		expect(vacation).toMatchObject({ kind: 'auto_reply', status: 'ignored', conversationId, messageId: null });
		expect(vacation.failure).toBe('Not posted: auto-reply (Auto-Submitted: auto-replied).');

		await deliver(newsletterMail({ to: ws.inbox }), { from: 'bounces+8f2a@shop.example', to: ws.inbox });
		const newsletter = await lastMail(ws.token);
		expect(newsletter).toMatchObject({ kind: 'bulk', status: 'ignored', conversationId: null, messageId: null });
		expect(newsletter.failure).toMatch(/Precedence: bulk/);

		expect(await storedTexts(ws.token, conversationId)).toEqual(before);
		const list = (await (await api(ws.token, 'GET', '/v3/conversations')).json()) as { data: unknown[] };
		expect(list.data).toHaveLength(1);
		await expect.poll(() => customerMessageEvents(ws.workspaceId)).toBe(1);
		expect(await executions(ruleId)).toBe(1);
	});

	it('a vacation reply to a continuation mail’s reply address is shown beside the conversation, never posted', async () => {
		const ws = await mailWorkspace();
		const conversationId = await startVisitorConversation(await startVisitor(ws.workspaceId), 'Hello');
		const to = `${await replyLocalPart(env, ws.workspaceId, conversationId)}@reply.acme.example`;
		const delivered = await deliver(vacationMail({ to }), { from: 'ana.souza@gmail.com', to });
		expect(delivered.rejected).toEqual([]);
		expect(await lastMail(ws.token)).toMatchObject({
			kind: 'auto_reply',
			status: 'ignored',
			conversationId,
			messageId: null,
		});
		expect(await storedTexts(ws.token, conversationId)).toEqual(['Hello']);
		const beside = await api(ws.token, 'GET', `/v3/conversations/${conversationId}/mails`);
		expect(((await beside.json()) as { data: { kind: string }[] }).data.map((m) => m.kind)).toEqual(['auto_reply']);
	});

	it('a bounce marks the contact’s address failing and the delivery it names failed', async () => {
		const ws = await mailWorkspace();
		await deliver(gmailMail({ to: ws.inbox, from: 'gone@contoso.example' }), {
			from: 'gone@contoso.example',
			to: ws.inbox,
		});
		const conversationId = (await lastMail(ws.token)).conversationId ?? '';
		// A mail Parley sent in the conversation, as the outbound side records it.
		const sent = newMessageId('parley.acme.example');
		const now = Date.now();
		const deliveryId = newId('mail', now);
		await db.insert(mailDeliveries).values({
			id: deliveryId,
			workspaceId: ws.workspaceId,
			conversationId,
			kind: 'reply',
			dedupeKey: `reply:${conversationId}:2`,
			recipient: 'gone@contoso.example',
			status: 'sent',
			headerMessageId: sent,
			createdAt: now,
			updatedAt: now,
			sentAt: now,
		});
		await db
			.insert(mailThreads)
			.values({ workspaceId: ws.workspaceId, messageId: sent, conversationId, createdAt: now });

		await deliver(bounceMail('Gone@Contoso.example', sent, { to: ws.inbox }), { from: '', to: ws.inbox });
		const bounce = await lastMail(ws.token);
		expect(bounce).toMatchObject({ kind: 'bounce', status: 'ignored', conversationId, messageId: null });
		expect(bounce.failure).toMatch(/1 contact address\(es\) marked failing, 1 delivery\(ies\) marked failed/);
		const contact = await db
			.select({ failingAt: contacts.emailFailingAt, failure: contacts.emailFailure })
			.from(contacts)
			.where(and(eq(contacts.workspaceId, ws.workspaceId), eq(contacts.email, 'gone@contoso.example')))
			.get();
		expect(contact?.failingAt).toBeTypeOf('number');
		expect(contact?.failure).toMatch(/^5\.1\.1 smtp; 550 5\.1\.1/);
		const delivery = await db.select().from(mailDeliveries).where(eq(mailDeliveries.id, deliveryId)).get();
		expect(delivery?.status).toBe('failed');
		expect(delivery?.error).toMatch(/^bounced: 5\.1\.1/);
		expect(await storedTexts(ws.token, conversationId)).toHaveLength(1);
	});

	it('a bounce naming another workspace’s address changes nothing there', async () => {
		const a = await mailWorkspace();
		const b = await mailWorkspace();
		await deliver(gmailMail({ to: a.inbox, from: 'kept@contoso.example' }), {
			from: 'kept@contoso.example',
			to: a.inbox,
		});
		await deliver(bounceMail('kept@contoso.example', newMessageId(), { to: b.inbox }), { from: '', to: b.inbox });
		expect((await lastMail(b.token)).kind).toBe('bounce');
		const contact = await db.select().from(contacts).where(eq(contacts.workspaceId, a.workspaceId)).get();
		expect(contact?.emailFailingAt).toBeNull();
	});
});

describe('Authentication-Results', () => {
	it('stores the verdicts, and flags a failing DMARC as possibly forged', async () => {
		const ws = await mailWorkspace();
		const spoof = [
			'Authentication-Results: mx.cloudflare.net; dkim=none; spf=softfail smtp.mailfrom=ceo@bank.example; dmarc=fail header.from=bank.example',
		];
		await deliver(gmailMail({ to: ws.inbox, from: 'ceo@bank.example', extraHeaders: spoof }), {
			from: 'ceo@bank.example',
			to: ws.inbox,
		});
		const forged = await lastMail(ws.token);
		expect(forged).toMatchObject({
			status: 'posted',
			authentication: { dkim: 'none', spf: 'softfail', dmarc: 'fail' },
			possiblyForged: true,
		});
		const genuine = ['Authentication-Results: mx.cloudflare.net; dkim=pass header.d=gmail.com; spf=pass; dmarc=pass'];
		await deliver(gmailMail({ to: ws.inbox, extraHeaders: genuine }), { from: 'ana.souza@gmail.com', to: ws.inbox });
		expect(await lastMail(ws.token)).toMatchObject({
			authentication: { dkim: 'pass', spf: 'pass', dmarc: 'pass' },
			possiblyForged: false,
		});
		const flagged = await receivedMails(ws.token);
		expect(flagged.filter((m) => m.possiblyForged).map((m) => m.id)).toEqual([forged.id]);
	});
});
