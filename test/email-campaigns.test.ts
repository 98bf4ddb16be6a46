import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { mailDeliveries } from '../src/db/schema';
import { campaignMailKey } from '../src/domain/campaigns/email-sending';
import { sendCampaignBatch } from '../src/domain/campaigns/sending';
import { buildCampaignMail } from '../src/domain/channels/email/build-campaign';
import { processDelivery } from '../src/domain/channels/email/sender';
import {
	bounce,
	type Campaign,
	campaignMails,
	contactWith,
	createEmailCampaign,
	fixAudience,
	recipients,
	sendNow,
	settledMails,
	statusOf,
} from './email-campaigns-helpers';
import { mailingWorkspace, SENDER } from './email-outbound-helpers';
import { api, awayFromMinuteBoundary, db, expectError, seedWorkspace } from './factories';

describe('POST and PATCH /v3/campaigns on e-mail', () => {
	it('takes a subject and a body as Liquid templates, checked when saved', async () => {
		const { token } = await seedWorkspace();
		const campaign = await createEmailCampaign(token);
		expect(campaign).toMatchObject({ channel: 'email', subject: 'News for {{ contact.name }}', status: 'draft' });
		const base = { name: 'x', template: 'Hi', audience: { kind: 'filter' } };
		// An e-mail campaign needs a subject; a widget campaign has none; a subject that does not parse is refused.
		await expectError(await api(token, 'POST', '/v3/campaigns', { ...base, channel: 'email' }), 422);
		await expectError(await api(token, 'POST', '/v3/campaigns', { ...base, subject: 'Hello' }), 422);
		const broken = await api(token, 'POST', '/v3/campaigns', { ...base, channel: 'email', subject: 'Hi {{ contact' });
		const body = (await expectError(broken, 422)) as { message: string };
		expect(body.message).toMatch(/subject/);
		const changed = await api(token, 'PATCH', `/v3/campaigns/${campaign.id}`, { subject: 'Sale, {{ contact.name }}' });
		expect(changed.status).toBe(200);
		expect(((await changed.json()) as Campaign).subject).toBe('Sale, {{ contact.name }}');
		await expectError(await api(token, 'PATCH', `/v3/campaigns/${campaign.id}`, { subject: '{% if %}' }), 422);
		const widget = await api(token, 'POST', '/v3/campaigns', base);
		const widgetId = ((await widget.json()) as Campaign).id;
		await expectError(await api(token, 'PATCH', `/v3/campaigns/${widgetId}`, { subject: 'Hello' }), 422);
	});

	it('is refused at send time while the workspace has no sender: nothing could go out', async () => {
		const { token } = await seedWorkspace();
		const campaign = await createEmailCampaign(token);
		await expectError(await api(token, 'POST', `/v3/campaigns/${campaign.id}/send`, {}), 409);
		expect(await statusOf(campaign.id)).toBe('draft');
	});
});

describe('sending an e-mail campaign', () => {
	it('mails each eligible contact once; no address, a failing one or an opt-out is left out with the reason', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada', email: 'ada@example.com' });
		const bob = await contactWith(token, { name: 'Bob', email: 'bob@example.com' });
		const noAddress = await contactWith(token, { name: 'Cy', phone: '+5511987654321' });
		const failing = await contactWith(token, { name: 'Di', email: 'di@example.com' });
		await bounce(failing);
		const optedOut = await contactWith(token, { name: 'Ed', email: 'ed@example.com', optedOut: true });
		const campaign = await createEmailCampaign(token);
		const started = await sendNow(token, campaign.id);
		// The opted-out contact is left out of the audience, as on the widget; the others are its recipients.
		expect(started.counts.targeted).toBe(4);
		const mails = await settledMails(workspaceId, campaign.id, 2);
		// A real send through the local binding: recorded sent with the provider's Message-ID, once each.
		expect(mails.map((m) => [m.recipient, m.status, m.attempts, m.kind]).sort()).toEqual([
			['ada@example.com', 'sent', 1, 'campaign'],
			['bob@example.com', 'sent', 1, 'campaign'],
		]);
		for (const mail of mails) expect(mail.providerMessageId).toMatch(/^<.+@acme\.test>$/);
		await expect.poll(() => statusOf(campaign.id)).toBe('sent');
		const list = await recipients(campaign.id);
		const byContact = new Map(list.map((r) => [r.contact_id, [r.status, r.error]]));
		expect(byContact.get(ada)).toEqual(['sent', null]);
		expect(byContact.get(bob)).toEqual(['sent', null]);
		expect(byContact.get(noAddress)).toEqual(['skipped', 'the contact has no e-mail address']);
		expect(byContact.get(failing)).toEqual(['skipped', 'the address is failing: 550 5.1.1 no such user']);
		expect(byContact.has(optedOut)).toBe(false);
		// A mail belongs to no conversation: the recipients keep none, and no conversation was opened.
		expect(list.every((r) => r.conversation_id === null)).toBe(true);
		const res = await api(token, 'GET', `/v3/campaigns/${campaign.id}`);
		expect(((await res.json()) as Campaign).counts).toMatchObject({ targeted: 4, sent: 2, skipped: 2 });
		const report = await api(token, 'GET', `/v3/reports/campaigns/${campaign.id}`);
		expect(await report.json()).toMatchObject({ reach: 2, skipped: 2, failed: 0 });
	});

	it('a batch delivered again, at the same time and after, and a mail processed again, mail no one twice', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ids = [];
		for (let i = 0; i < 12; i++) ids.push(await contactWith(token, { name: `C${i}`, email: `c${i}@example.com` }));
		const campaign = await createEmailCampaign(token);
		await sendNow(token, campaign.id);
		const again = { workspaceId, campaignId: campaign.id, batch: 0 };
		await Promise.all([sendCampaignBatch(env, again), sendCampaignBatch(env, again), sendCampaignBatch(env, again)]);
		const mails = await settledMails(workspaceId, campaign.id, 12);
		await sendCampaignBatch(env, again);
		await Promise.all(mails.map((m) => processDelivery(env, db, m.id)));
		const after = await campaignMails(workspaceId, campaign.id);
		expect(after).toHaveLength(12);
		expect(new Set(after.map((m) => m.contactId))).toEqual(new Set(ids));
		expect(after.every((m) => m.status === 'sent' && m.attempts === 1)).toBe(true);
		expect((await recipients(campaign.id)).filter((r) => r.status === 'sent')).toHaveLength(12);
	});

	it('a retry that takes over a lapsed claim after the mail was enqueued finds it there', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada', email: 'ada@example.com' });
		const campaign = await createEmailCampaign(token);
		await fixAudience(campaign.id, workspaceId, [ada]);
		await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 0 }, 100);
		// As if the batch died after enqueueing, before recording: the recipient is claimed again once it lapses.
		await env.DB.prepare(
			"UPDATE campaign_recipients SET status = 'sending', claimed_until = 0, sent_at = NULL WHERE campaign_id = ?",
		)
			.bind(campaign.id)
			.run();
		await env.DB.prepare("UPDATE campaigns SET status = 'sending' WHERE id = ?").bind(campaign.id).run();
		const outcome = await sendCampaignBatch(env, { workspaceId, campaignId: campaign.id, batch: 0 }, 100);
		expect(outcome.sent).toBe(1);
		expect(await settledMails(workspaceId, campaign.id, 1)).toHaveLength(1);
	});

	it('takes only what the workspace may send this minute, widget and e-mail campaigns together', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const widgetContacts = [];
		for (let i = 0; i < 5; i++) widgetContacts.push(await contactWith(token, { name: `W${i}` }));
		const mailContacts = [];
		for (let i = 0; i < 20; i++) mailContacts.push(await contactWith(token, { email: `m${i}@example.com` }));
		const widget = await api(token, 'POST', '/v3/campaigns', {
			name: 'Widget',
			template: 'Hi',
			audience: { kind: 'contacts', contactIds: widgetContacts },
		});
		const widgetId = ((await widget.json()) as Campaign).id;
		const mail = await createEmailCampaign(token, { audience: { kind: 'contacts', contactIds: mailContacts } });
		await fixAudience(widgetId, workspaceId, widgetContacts);
		await fixAudience(mail.id, workspaceId, mailContacts);
		// The limiter counts in minutes of real time: a send across a minute's end would find a fresh budget.
		await awayFromMinuteBoundary();
		const perMinute = 12;
		const first = await sendCampaignBatch(env, { workspaceId, campaignId: widgetId, batch: 0 }, perMinute);
		expect(first.sent).toBe(5);
		const second = await sendCampaignBatch(env, { workspaceId, campaignId: mail.id, batch: 0 }, perMinute);
		// What the widget campaign took this minute is not the e-mail campaign's to take (a budget of its own
		// would have let it mail 12).
		expect(second.sent).toBeGreaterThan(0);
		expect(first.sent + second.sent).toBeLessThanOrEqual(perMinute);
		expect(second.deferredSeconds).toBeGreaterThanOrEqual(1);
		expect(second.deferredSeconds).toBeLessThanOrEqual(60);
		expect(await campaignMails(workspaceId, mail.id)).toHaveLength(second.sent);
		const pending = (await recipients(mail.id)).filter((r) => r.status === 'pending');
		expect(pending).toHaveLength(20 - second.sent);
		// The rest waits for the next minute: another delivery within this one mails no one.
		expect((await sendCampaignBatch(env, { workspaceId, campaignId: mail.id, batch: 0 }, perMinute)).sent).toBe(0);
	});
});

describe('the campaign mail', () => {
	it('renders the subject and body per contact, a line break in a name neutralised in every header', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada\r\nBcc: all@evil.test', email: 'ada@example.com' });
		const bob = await contactWith(token, { name: 'Bob <b>', email: 'bob@example.com' });
		const campaign = await createEmailCampaign(token, {
			subject: 'News for {{ contact.name }}',
			template: 'Hi {{ contact.name }}, our *sale* & more: https://acme.test/sale',
		});
		await sendNow(token, campaign.id);
		const mails = await settledMails(workspaceId, campaign.id, 2);
		const built = new Map<string, Awaited<ReturnType<typeof buildCampaignMail>>>();
		for (const row of mails) built.set(row.contactId ?? '', await buildCampaignMail(env, db, row));
		const forAda = built.get(ada);
		const forBob = built.get(bob);
		if (!forAda || 'skip' in forAda || !forBob || 'skip' in forBob) throw new Error('not built');
		expect(forAda.mail.subject).toBe('News for Ada Bcc: all@evil.test');
		expect(forBob.mail.subject).toBe('News for Bob <b>');
		expect(forAda.mail.to).toBe('ada@example.com');
		expect(forAda.mail.from).toEqual({ email: SENDER, name: 'Acme support' });
		expect(forAda.mail.replyTo).toBe(SENDER);
		for (const { mail } of [forAda, forBob]) {
			for (const value of [mail.subject, mail.from.name, mail.to, ...Object.values(mail.headers)]) {
				expect(value).not.toMatch(/[\r\n]/);
			}
			expect(Object.keys(mail.headers).some((name) => /bcc/i.test(name))).toBe(false);
			expect(mail.headers['Auto-Submitted']).toBe('auto-generated');
			expect(mail.headers['List-Unsubscribe']).toMatch(/^<https:\/\/parley\.test\/mail\/unsubscribe\/[\w-]+\.[\w-]+>$/);
			expect(mail.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
			const link = mail.headers['List-Unsubscribe']?.slice(1, -1) ?? '';
			expect(mail.text).toContain(link);
			expect(mail.html).toContain(`href="${link}"`);
		}
		// The body as text and escaped HTML through the one formatting: bold, a link, nothing of Bob's markup.
		expect(forBob.mail.text).toContain('Hi Bob <b>, our *sale* & more: https://acme.test/sale');
		expect(forBob.mail.html).toContain(
			'Hi Bob &lt;b&gt;, our <strong>sale</strong> &amp; more: <a href="https://acme.test/sale">https://acme.test/sale</a>',
		);
		expect(forBob.mail.html).not.toContain('<b>');
		// Each contact's link is its own.
		expect(forAda.mail.headers['List-Unsubscribe']).not.toBe(forBob.mail.headers['List-Unsubscribe']);
	});

	it('is skipped at the send when the contact bounced since it was enqueued, and failed when it renders empty', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada', email: 'ada@example.com' });
		const campaign = await createEmailCampaign(token);
		// Enqueued (as a batch would) but with no Queue message: only the calls below send it.
		const now = Date.now();
		await db.insert(mailDeliveries).values({
			id: `mail_test_${ada}`,
			workspaceId,
			kind: 'campaign',
			dedupeKey: campaignMailKey(campaign.id, ada),
			recipient: 'ada@example.com',
			campaignId: campaign.id,
			contactId: ada,
			status: 'queued',
			createdAt: now,
			updatedAt: now,
		});
		await bounce(ada);
		await processDelivery(env, db, `mail_test_${ada}`);
		const [row] = await campaignMails(workspaceId, campaign.id);
		expect(row).toMatchObject({ status: 'skipped', error: 'the address is failing: 550 5.1.1 no such user' });

		const empty = await createEmailCampaign(token, { template: '{{ contact.phone }}' });
		const bob = await contactWith(token, { name: 'Bob', email: 'bob@example.com' });
		await fixAudience(empty.id, workspaceId, [bob]);
		await sendCampaignBatch(env, { workspaceId, campaignId: empty.id, batch: 0 }, 100);
		expect((await recipients(empty.id)).map((r) => [r.status, r.error])).toEqual([
			['failed', 'template: it renders empty for this contact'],
		]);
		expect(await campaignMails(workspaceId, empty.id)).toHaveLength(0);
	});
});
