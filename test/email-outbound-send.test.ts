import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { parseReplyLocalPart, verifyReplyAddress } from '../src/auth/mail-reply-token';
import { contacts, emailSettings, inboundMails, mailThreads } from '../src/db/schema';
import { buildConversationMail } from '../src/domain/channels/email/build';
import { claimDelivery } from '../src/domain/channels/email/deliveries';
import {
	giveUpDelivery,
	isPermanent,
	processDelivery,
	providerError,
	sweepMail,
} from '../src/domain/channels/email/sender';
import {
	conversationWith,
	deliveryRow,
	mailingWorkspace,
	recordedEvents,
	SENDER,
	seedDelivery,
} from './email-outbound-helpers';
import { api, db } from './factories';

/** A workspace that can send, an API conversation with three operator messages, and a continuation of them. */
async function continuation(texts = ['Hello *Ada*', 'Your <b>order</b> & invoice', 'Anything else?']) {
	const seeded = await mailingWorkspace();
	const conversation = await conversationWith(seeded.token, 'api', texts);
	const id = await seedDelivery(seeded.workspaceId, {
		conversationId: conversation.conversationId,
		contactId: conversation.contactId,
		recipient: conversation.email,
		firstSeq: 1,
		lastSeq: texts.length,
	});
	return { ...seeded, ...conversation, deliveryId: id };
}

describe('building a mail from the conversation', () => {
	it('carries the messages as text and escaped HTML, threads them, and replies to the signed address', async () => {
		const { workspaceId, conversationId, deliveryId, email } = await continuation();
		await db.insert(mailThreads).values({ workspaceId, messageId: 'earlier@acme.test', conversationId, createdAt: 1 });
		const claimed = await claimDelivery(db, deliveryId);
		if (!claimed) throw new Error('not claimed');
		const built = await buildConversationMail(env, db, [claimed]);
		if ('skip' in built) throw new Error(built.skip);
		const { mail } = built;
		expect(mail.from).toEqual({ email: SENDER, name: 'Acme support' });
		expect(mail.to).toBe(email);
		expect(mail.text).toContain('Operator:\nHello *Ada*');
		expect(mail.text).toContain('Your <b>order</b> & invoice');
		expect(mail.html).toContain('Hello <strong>Ada</strong>');
		expect(mail.html).toContain('Your &lt;b&gt;order&lt;/b&gt; &amp; invoice');
		expect(mail.html).not.toContain('<b>');
		expect(mail.headers['In-Reply-To']).toBe('<earlier@acme.test>');
		expect(mail.headers.References).toBe('<earlier@acme.test>');
		expect(mail.headers['Auto-Submitted']).toBe('auto-generated');
		expect(mail.headers['List-Unsubscribe']).toMatch(/^<https:\/\/parley\.test\/mail\/stop\/[\w-]+\.[\w-]+>$/);
		const [local = '', domain] = mail.replyTo.split('@');
		expect(domain).toBe('acme.test');
		const parts = parseReplyLocalPart(local);
		expect(parts?.conversationId).toBe(conversationId);
		expect(parts && (await verifyReplyAddress(env, workspaceId, parts))).toBe(true);
		// Scoped to its workspace: the same address does not verify for another.
		expect(parts && (await verifyReplyAddress(env, 'ws_someone_else', parts))).toBe(false);
	});

	it('neutralises a line break in the sender name and the subject it is given', async () => {
		const { workspaceId, deliveryId } = await continuation();
		// Written behind the API's back (the API refuses it): the sender still cleans what it puts in a header.
		await db
			.update(emailSettings)
			.set({ senderName: 'Acme\r\nBcc: everyone@example.com' })
			.where(eq(emailSettings.workspaceId, workspaceId));
		const claimed = await claimDelivery(db, deliveryId);
		if (!claimed) throw new Error('not claimed');
		const built = await buildConversationMail(env, db, [claimed]);
		if ('skip' in built) throw new Error(built.skip);
		expect(built.mail.from.name).toBe('Acme Bcc: everyone@example.com');
		for (const value of [built.mail.subject, ...Object.values(built.mail.headers)]) expect(value).not.toMatch(/[\r\n]/);
	});
});

describe('a reply in an e-mail conversation', () => {
	it('answers under the conversation’s own subject, cleaned, and an operator’s own reply is not auto-generated', async () => {
		const seeded = await mailingWorkspace();
		const { conversationId, contactId, email } = await conversationWith(seeded.token, 'api', ['Here is your answer']);
		await db.insert(inboundMails).values({
			id: 'inm_test',
			workspaceId: seeded.workspaceId,
			conversationId,
			rawKey: 'raw/test',
			rawSize: 1,
			envelopeFrom: email,
			envelopeTo: SENDER,
			subject: 'Order 42\r\nBcc: everyone@example.com',
			kind: 'message',
			status: 'posted',
			receivedAt: 1,
		});
		const id = await seedDelivery(seeded.workspaceId, {
			kind: 'reply',
			conversationId,
			contactId,
			recipient: email,
			firstSeq: 1,
			lastSeq: 1,
		});
		const claimed = await claimDelivery(db, id);
		if (!claimed) throw new Error('not claimed');
		const built = await buildConversationMail(env, db, [claimed]);
		if ('skip' in built) throw new Error(built.skip);
		expect(built.mail.subject).toBe('Re: Order 42 Bcc: everyone@example.com');
		expect(built.mail.headers['Auto-Submitted']).toBeUndefined();
		expect(built.mail.headers['List-Unsubscribe']).toBeUndefined();
	});
});

describe('the provider’s errors', () => {
	const cases: Array<[unknown, boolean]> = [
		[Object.assign(new Error('slow down'), { code: 'E_RATE_LIMIT_EXCEEDED' }), false],
		[Object.assign(new Error('try later'), { code: 'E_INTERNAL_SERVER_ERROR' }), false],
		[Object.assign(new Error('verify it'), { code: 'E_SENDER_NOT_VERIFIED' }), true],
		[Object.assign(new Error('suppressed'), { code: 'E_RECIPIENT_SUPPRESSED' }), true],
		[new Error('email from a@b.c not allowed'), true],
		[new Error('network connection lost'), false],
	];
	it.each(cases)('%s is permanent: %s', (error, permanent) => {
		const { code, reason } = providerError(error);
		expect(isPermanent(code, reason)).toBe(permanent);
		expect(reason).toContain((error as Error).message);
	});
});

describe('processing a delivery', () => {
	it('sends it once, whether processed twice in sequence or concurrently', async () => {
		const { workspaceId, deliveryId, conversationId } = await continuation();
		await Promise.all([processDelivery(env, db, deliveryId), processDelivery(env, db, deliveryId)]);
		const sent = await deliveryRow(deliveryId);
		expect(sent).toMatchObject({ status: 'sent', attempts: 1, error: null });
		expect(sent?.providerMessageId).toMatch(/^<.+@acme\.test>$/);
		await processDelivery(env, db, deliveryId);
		expect(await deliveryRow(deliveryId)).toEqual(sent);
		const threads = await db.select().from(mailThreads).where(eq(mailThreads.conversationId, conversationId));
		expect(threads.map((t) => t.messageId)).toEqual([sent?.headerMessageId]);
		await expect.poll(async () => (await recordedEvents(workspaceId, 'mail.sent')).length).toBe(1);
	});

	it('records the provider’s refusal with its reason, and announces it', async () => {
		const { workspaceId, deliveryId, token } = await continuation();
		await processDelivery({ ...env, EMAIL: env.REFUSING_EMAIL }, db, deliveryId);
		const row = await deliveryRow(deliveryId);
		expect(row).toMatchObject({ status: 'failed', attempts: 1, providerMessageId: null });
		expect(row?.error).toBe(`email from ${SENDER} not allowed`);
		await expect.poll(async () => (await recordedEvents(workspaceId, 'mail.failed')).length).toBe(1);
		// The sender itself was refused: the settings say why mail cannot go out, until a new sender is set.
		const settings = async () =>
			((await (await api(token, 'GET', '/v3/email/settings')).json()) as { sending: unknown }).sending;
		expect(await settings()).toEqual({ ready: false, reason: `email from ${SENDER} not allowed` });
		await api(token, 'PUT', '/v3/email/settings', { senderAddress: 'hello@acme.test' });
		expect(await settings()).toEqual({ ready: true, reason: null });
		// Settled: the Queue delivering it again sends nothing.
		await processDelivery(env, db, deliveryId);
		expect((await deliveryRow(deliveryId))?.status).toBe('failed');
	});

	it('skips, with the reason, what must not go', async () => {
		const stopped = await continuation();
		await db.update(contacts).set({ continuationOptOutAt: Date.now() }).where(eq(contacts.id, stopped.contactId));
		await processDelivery(env, db, stopped.deliveryId);
		expect(await deliveryRow(stopped.deliveryId)).toMatchObject({
			status: 'skipped',
			error: 'the contact stopped continuation mails',
		});

		const failing = await continuation();
		await db
			.update(contacts)
			.set({ emailFailingAt: Date.now(), emailFailure: '550 no such user' })
			.where(eq(contacts.id, failing.contactId));
		await processDelivery(env, db, failing.deliveryId);
		expect(await deliveryRow(failing.deliveryId)).toMatchObject({
			status: 'skipped',
			error: 'the address is failing: 550 no such user',
		});

		const unsent = await continuation();
		await api(unsent.token, 'PUT', '/v3/email/settings', { senderAddress: null });
		await processDelivery(env, db, unsent.deliveryId);
		expect(await deliveryRow(unsent.deliveryId)).toMatchObject({ status: 'skipped', error: 'no sender set' });
	});

	it('shows where the mail stands on the messages it carries', async () => {
		const { token, conversationId, deliveryId } = await continuation(['one', 'two']);
		await processDelivery({ ...env, EMAIL: env.REFUSING_EMAIL }, db, deliveryId);
		const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
		const { data } = (await res.json()) as { data: Array<{ seq: number; mail?: { status: string; error?: string } }> };
		expect(data.map((m) => m.mail)).toEqual([
			{ status: 'failed', error: `email from ${SENDER} not allowed` },
			{ status: 'failed', error: `email from ${SENDER} not allowed` },
		]);
	});
});

describe('the dead-letter queue and the sweep', () => {
	it('records a delivery whose every try failed as failed', async () => {
		const { deliveryId } = await continuation();
		await giveUpDelivery(env, db, deliveryId);
		expect(await deliveryRow(deliveryId)).toMatchObject({ status: 'failed', error: 'gave up after 1 tries' });
	});

	it('sends a delivery whose Queue message was lost, and never sends twice one left sending', async () => {
		const lost = await continuation();
		const interrupted = await continuation();
		await claimDelivery(db, interrupted.deliveryId);
		// Twenty minutes later: both are past their grace.
		await sweepMail(env, db, Date.now() + 20 * 60_000);
		await expect.poll(async () => (await deliveryRow(lost.deliveryId))?.status).toBe('sent');
		expect(await deliveryRow(interrupted.deliveryId)).toMatchObject({
			status: 'failed',
			attempts: 1,
			providerMessageId: null,
		});
	});
});
