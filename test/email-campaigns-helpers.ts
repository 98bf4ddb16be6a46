/** What the e-mail campaign tests share: contacts of every kind, an e-mail campaign, its recipients and mails. */
import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { contacts, mailDeliveries } from '../src/db/schema';
import { api, db } from './factories';

export interface Campaign {
	id: string;
	status: string;
	channel: string;
	subject: string | null;
	counts: Record<string, number>;
}

/** A contact made through the API (its e-mail, if any, lower-cased by it). */
export async function contactWith(token: string, body: Record<string, unknown>): Promise<string> {
	const res = await api(token, 'POST', '/v3/contacts', body);
	expect(res.status, await res.clone().text()).toBe(201);
	return ((await res.json()) as { id: string }).id;
}

/** Marks a contact's address as failing, as a bounce does. */
export async function bounce(contactId: string, reason = '550 5.1.1 no such user') {
	await db.update(contacts).set({ emailFailingAt: Date.now(), emailFailure: reason }).where(eq(contacts.id, contactId));
}

export async function createEmailCampaign(token: string, body: Record<string, unknown> = {}): Promise<Campaign> {
	const res = await api(token, 'POST', '/v3/campaigns', {
		name: 'Newsletter',
		channel: 'email',
		subject: 'News for {{ contact.name }}',
		template: 'Hi {{ contact.name }}, our *sale* starts today.',
		audience: { kind: 'filter' },
		...body,
	});
	expect(res.status, await res.clone().text()).toBe(201);
	return (await res.json()) as Campaign;
}

export async function sendNow(token: string, id: string): Promise<Campaign> {
	const res = await api(token, 'POST', `/v3/campaigns/${id}/send`, {});
	expect(res.status, await res.clone().text()).toBe(200);
	return (await res.json()) as Campaign;
}

/** The campaign's status as D1 has it (polled there: the API's rate limit is for people). */
export async function statusOf(id: string): Promise<string | undefined> {
	return (await env.DB.prepare('SELECT status FROM campaigns WHERE id = ?').bind(id).first<{ status: string }>())
		?.status;
}

/** The campaign's recipients as [contact, status, error], by contact. */
export async function recipients(campaignId: string) {
	const { results } = await env.DB.prepare(
		'SELECT contact_id, status, error, conversation_id FROM campaign_recipients WHERE campaign_id = ? ORDER BY contact_id',
	)
		.bind(campaignId)
		.all<{ contact_id: string; status: string; error: string | null; conversation_id: string | null }>();
	return results;
}

/** The campaign's mail deliveries. */
export async function campaignMails(workspaceId: string, campaignId: string) {
	return db
		.select()
		.from(mailDeliveries)
		.where(and(eq(mailDeliveries.workspaceId, workspaceId), eq(mailDeliveries.campaignId, campaignId)));
}

/** Every delivery of the campaign settled (sent, failed or skipped): how many of each. */
export async function settledMails(workspaceId: string, campaignId: string, expected: number) {
	await expect
		.poll(
			async () =>
				(await campaignMails(workspaceId, campaignId)).filter((m) => m.status !== 'queued' && m.status !== 'sending')
					.length,
			{ timeout: 30_000, interval: 200 },
		)
		.toBe(expected);
	return campaignMails(workspaceId, campaignId);
}

/**
 * What a start writes, without queueing anything: the campaign sending, the listed contacts recipients of
 * batch 0 (pending), so that only the test's own calls send.
 */
export async function fixAudience(campaignId: string, workspaceId: string, contactIds: string[]) {
	const now = Date.now();
	await env.DB.batch([
		env.DB.prepare("UPDATE campaigns SET status = 'sending', started_at = ?, updated_at = ? WHERE id = ?").bind(
			now,
			now,
			campaignId,
		),
		env.DB.prepare(
			`INSERT INTO campaign_recipients (workspace_id, campaign_id, contact_id, batch, status)
			SELECT ?, ?, value, 0, 'pending' FROM json_each(?)`,
		).bind(workspaceId, campaignId, JSON.stringify(contactIds)),
	]);
}
