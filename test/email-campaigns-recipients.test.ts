import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { mailDeliveries } from '../src/db/schema';
import { campaignMailKey } from '../src/domain/campaigns/email-sending';
import { recipientRows } from '../src/domain/campaigns/recipients';
import { processDelivery } from '../src/domain/channels/email/sender';
import {
	type Campaign,
	contactWith,
	createEmailCampaign,
	sendNow,
	settledMails,
	statusOf,
} from './email-campaigns-helpers';
import { mailingWorkspace, SENDER } from './email-outbound-helpers';
import { api, d1Timing, db, expectError } from './factories';

interface Mail {
	deliveryId: string;
	status: string;
	error: string | null;
	sentAt: string | null;
}
interface Recipient {
	contactId: string;
	contact: { name: string | null; email: string | null; phone: string | null } | null;
	status: string;
	error: string | null;
	sentAt: string | null;
	mail: Mail | null;
}
interface Page {
	data: Recipient[];
	nextCursor: string | null;
}

async function recipientPage(token: string, campaignId: string, query = ''): Promise<Page> {
	const res = await api(token, 'GET', `/v3/campaigns/${campaignId}/recipients${query}`);
	expect(res.status, await res.clone().text()).toBe(200);
	return (await res.json()) as Page;
}

/**
 * An e-mail campaign's mail enqueued for `contactId` ahead of the send (no Queue message), then refused by the
 * provider: the send finds it recorded and enqueues nothing again, so that one mail is failed whatever the
 * mail consumer does with the others.
 */
async function refusedAhead(workspaceId: string, campaignId: string, contactId: string, recipient: string) {
	const now = Date.now();
	const id = `mail_refused_${contactId}`;
	await db.insert(mailDeliveries).values({
		id,
		workspaceId,
		kind: 'campaign',
		dedupeKey: campaignMailKey(campaignId, contactId),
		recipient,
		campaignId,
		contactId,
		status: 'queued',
		createdAt: now,
		updatedAt: now,
	});
	await processDelivery({ ...env, EMAIL: env.REFUSING_EMAIL }, db, id);
	return id;
}

describe('GET /v3/campaigns/{id}/recipients on e-mail', () => {
	it('shows where each recipient’s mail stands: sent, or failed with the provider’s reason', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada', email: 'ada@example.com' });
		const bob = await contactWith(token, { name: 'Bob', email: 'bob@example.com' });
		const cy = await contactWith(token, { name: 'Cy', email: 'cy@example.com' });
		const noAddress = await contactWith(token, { name: 'Di', phone: '+5511987654321' });
		const campaign = await createEmailCampaign(token);
		// A test send to Ada is a mail of the campaign too, but not her recipient's.
		const test = await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId: ada });
		expect(test.status).toBe(201);
		const testDelivery = ((await test.json()) as { deliveryId: string }).deliveryId;
		const refused = await refusedAhead(workspaceId, campaign.id, cy, 'cy@example.com');
		await sendNow(token, campaign.id);
		await expect.poll(() => statusOf(campaign.id), { timeout: 30_000 }).toBe('sent');
		// Ada's and Bob's mails go through the mail Queue and its consumer, for real.
		const mails = await settledMails(workspaceId, campaign.id, 4);
		const campaignMail = (contactId: string) =>
			mails.find((m) => m.dedupeKey === campaignMailKey(campaign.id, contactId))?.id;

		const { data, nextCursor } = await recipientPage(token, campaign.id);
		expect(nextCursor).toBeNull();
		const byContact = new Map(data.map((r) => [r.contactId, r]));
		expect(byContact.size).toBe(4);
		for (const contactId of [ada, bob]) {
			const recipient = byContact.get(contactId);
			expect(recipient).toMatchObject({ status: 'sent', error: null, contact: { phone: null } });
			expect(recipient?.mail).toEqual({
				deliveryId: campaignMail(contactId),
				status: 'sent',
				error: null,
				sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
			});
		}
		expect(byContact.get(ada)?.contact).toEqual({ name: 'Ada', email: 'ada@example.com', phone: null });
		expect(byContact.get(ada)?.mail?.deliveryId).not.toBe(testDelivery);
		// Cy is a recipient the campaign reached (its mail was enqueued); the provider refused the mail.
		expect(byContact.get(cy)).toMatchObject({
			status: 'sent',
			mail: { deliveryId: refused, status: 'failed', error: `email from ${SENDER} not allowed`, sentAt: null },
		});
		expect(byContact.get(noAddress)).toMatchObject({
			status: 'skipped',
			error: 'the contact has no e-mail address',
			mail: null,
		});

		const failed = await recipientPage(token, campaign.id, '?mailStatus=failed');
		expect(failed.data.map((r) => r.contactId)).toEqual([cy]);
		const sent = await recipientPage(token, campaign.id, '?mailStatus=sent&status=sent');
		expect(sent.data.map((r) => r.contactId).sort()).toEqual([ada, bob].sort());
		await expectError(await api(token, 'GET', `/v3/campaigns/${campaign.id}/recipients?mailStatus=lost`), 422);

		// Paged by contact, the mail read with its recipient: the same rows, and one statement a page after the
		// campaign's, whatever its size.
		const first = await recipientPage(token, campaign.id, '?limit=3');
		expect(first.nextCursor).not.toBeNull();
		const second = await recipientPage(token, campaign.id, `?limit=3&cursor=${first.nextCursor}`);
		expect([...first.data, ...second.data]).toEqual(data);
		for (const limit of [1, 100]) {
			const res = await api(token, 'GET', `/v3/campaigns/${campaign.id}/recipients?limit=${limit}`);
			expect(d1Timing(res)).toBe('d1;desc="2 queries"');
		}
	});

	it('finds each mail through the deliveries’ unique key, never by scanning them, whatever the filters', async () => {
		const campaign = { id: 'cmp_plan', workspaceId: 'ws_plan' };
		for (const filters of [{}, { mailStatus: 'failed' as const, status: 'sent' as const, replied: false }]) {
			const { sql, params } = recipientRows(db, campaign, filters, { id: 'ctc_a' }, 100).toSQL();
			const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
				.bind(...params)
				.all<{ detail: string }>();
			const plan = results.map((row) => row.detail);
			// Recipients by their primary key in contact order (no sort), each one's contact by its own and its
			// mail by the unique key (a mail filter makes that join an inner one; the probe is the same).
			expect(plan[0]).toBe(
				'SEARCH campaign_recipients USING INDEX sqlite_autoindex_campaign_recipients_1 (campaign_id=? AND contact_id>?)',
			);
			expect(plan.slice(1).sort()).toEqual([
				expect.stringMatching(/^SEARCH contacts USING INDEX sqlite_autoindex_contacts_1 \(id=\?\)( LEFT-JOIN)?$/),
				expect.stringMatching(
					/^SEARCH mail_deliveries USING INDEX mail_deliveries_dedupe \(workspace_id=\? AND dedupe_key=\?\)( LEFT-JOIN)?$/,
				),
			]);
		}
	});

	it('gives a widget campaign’s recipients no mail, another workspace none of them, a deleted contact its id alone', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada', email: 'ada@example.com' });
		const res = await api(token, 'POST', '/v3/campaigns', {
			name: 'Widget',
			template: 'Hi {{ contact.name }}',
			audience: { kind: 'contacts', contactIds: [ada] },
		});
		const widget = (await res.json()) as Campaign;
		await sendNow(token, widget.id);
		await expect.poll(() => statusOf(widget.id), { timeout: 30_000 }).toBe('sent');
		const { data } = await recipientPage(token, widget.id);
		expect(data).toEqual([expect.objectContaining({ contactId: ada, status: 'sent', mail: null })]);
		expect((await recipientPage(token, widget.id, '?mailStatus=sent')).data).toEqual([]);

		const bo = await contactWith(token, { name: 'Bo', email: 'bo@example.com' });
		const mailed = await createEmailCampaign(token, { audience: { kind: 'contacts', contactIds: [bo] } });
		await sendNow(token, mailed.id);
		await settledMails(workspaceId, mailed.id, 1);
		const other = await mailingWorkspace();
		for (const id of [widget.id, mailed.id]) {
			await expectError(await api(other.token, 'GET', `/v3/campaigns/${id}/recipients`), 404);
		}
		// A contact deleted since stays a recipient with its mail, shown by its id alone.
		expect((await api(token, 'DELETE', `/v3/contacts/${bo}`)).status).toBe(204);
		expect((await recipientPage(token, mailed.id)).data).toEqual([
			expect.objectContaining({
				contactId: bo,
				contact: null,
				status: 'sent',
				mail: expect.objectContaining({ status: 'sent' }),
			}),
		]);
	});
});
