import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signMailLink } from '../src/auth/mail-link-token';
import { contacts } from '../src/db/schema';
import { buildCampaignMail } from '../src/domain/channels/email/build-campaign';
import {
	contactWith,
	createEmailCampaign,
	recipients,
	sendNow,
	settledMails,
	statusOf,
} from './email-campaigns-helpers';
import { mailingWorkspace } from './email-outbound-helpers';
import { api, db, expectError, seedWorkspace } from './factories';

function open(method: string, path: string, body?: string) {
	return exports.default.fetch(
		new Request(`https://parley.test${path}`, {
			method,
			body,
			headers: body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
		}),
	);
}

async function consent(contactId: string) {
	const row = await db.select().from(contacts).where(eq(contacts.id, contactId)).get();
	return { at: row?.optedOutAt ?? null, source: row?.optedOutSource ?? null, stopped: row?.continuationOptOutAt };
}

/** A workspace that mailed a campaign to Ada, and the unsubscribe link the mail carried (its path). */
async function mailedAda() {
	const seeded = await mailingWorkspace();
	const ada = await contactWith(seeded.token, { name: 'Ada', email: 'ada@example.com' });
	const campaign = await createEmailCampaign(seeded.token);
	await sendNow(seeded.token, campaign.id);
	const [row] = await settledMails(seeded.workspaceId, campaign.id, 1);
	if (!row) throw new Error('no mail');
	const built = await buildCampaignMail(env, db, row);
	if ('skip' in built) throw new Error(built.skip);
	const url = new URL(built.mail.headers['List-Unsubscribe']?.slice(1, -1) ?? '');
	return { ...seeded, ada, path: url.pathname, linkToken: url.pathname.split('/').at(-1) ?? '' };
}

describe('the unsubscribe link of campaign mails', () => {
	it('shows a confirmation on GET and changes nothing', async () => {
		const { ada, path } = await mailedAda();
		expect(path).toMatch(/^\/mail\/unsubscribe\//);
		const res = await open('GET', path);
		expect(res.status).toBe(200);
		expect(res.headers.get('Content-Type')).toContain('text/html');
		const html = await res.text();
		expect(html).toContain('<form method="post">');
		expect(html).toContain('name="List-Unsubscribe" value="One-Click"');
		expect((await consent(ada)).at).toBeNull();
	});

	it('opts the contact out of campaigns on the one-click POST, once, and the next campaign leaves it out', async () => {
		const { token, workspaceId, ada, path } = await mailedAda();
		const res = await open('POST', path, 'List-Unsubscribe=One-Click');
		expect(res.status).toBe(200);
		expect(await res.text()).toContain('You will no longer get campaigns');
		const first = await consent(ada);
		expect(first.at).not.toBeNull();
		expect(first.source).toBe('unsubscribe link');
		// Campaigns only: the continuation of conversations by mail is the stop link's to end.
		expect(first.stopped).toBeNull();
		// Again (a second click, the page's own button): nothing moves.
		expect((await open('POST', path)).status).toBe(200);
		expect(await consent(ada)).toEqual(first);
		expect(await (await open('GET', path)).text()).toContain('You are unsubscribed');
		// The API shows it.
		const shown = (await (await api(token, 'GET', `/v3/contacts/${ada}`)).json()) as Record<string, unknown>;
		expect(shown).toMatchObject({ optedOut: true, optedOutSource: 'unsubscribe link' });
		// The next campaign leaves the contact out; a new contact still gets it.
		const bob = await contactWith(token, { name: 'Bob', email: 'bob@example.com' });
		const next = await createEmailCampaign(token);
		const started = await sendNow(token, next.id);
		expect(started.counts.targeted).toBe(1);
		const mails = await settledMails(workspaceId, next.id, 1);
		expect(mails.map((m) => m.contactId)).toEqual([bob]);
		await expect.poll(() => statusOf(next.id)).toBe('sent');
		expect((await recipients(next.id)).map((r) => r.contact_id)).toEqual([bob]);
	});

	it('refuses a forged, altered or foreign token in the spec’s error body', async () => {
		const { workspaceId, ada, linkToken } = await mailedAda();
		const [payload = '', signature = ''] = linkToken.split('.');
		const claims = { purpose: 'unsubscribe', workspaceId, contactId: 'ctc_other' };
		const forged = [
			// Its first character changed: every bit of it counts (the last one's low bits are padding, and "AA"
			// there was sometimes the signature itself).
			`${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`,
			`${btoa(JSON.stringify(claims)).replace(/=+$/, '')}.${signature}`,
			'not-a-token',
		];
		for (const bad of forged) {
			await expectError(await open('GET', `/mail/unsubscribe/${bad}`), 404);
			await expectError(await open('POST', `/mail/unsubscribe/${bad}`, 'List-Unsubscribe=One-Click'), 404);
		}
		// A continuation's stop link is no unsubscribe link, and the other way round.
		const stop = await signMailLink(env, { purpose: 'stop', workspaceId, contactId: ada });
		await expectError(await open('POST', `/mail/unsubscribe/${stop}`, 'List-Unsubscribe=One-Click'), 404);
		await expectError(await open('POST', `/mail/stop/${linkToken}`, 'List-Unsubscribe=One-Click'), 404);
		expect(await consent(ada)).toEqual({ at: null, source: null, stopped: null });
	});
});

describe('tenant isolation', () => {
	it('a link signed for another workspace names no contact here; another workspace’s campaign is not found', async () => {
		const { token, ada } = await mailedAda();
		const other = await seedWorkspace();
		const crossed = await signMailLink(env, { purpose: 'unsubscribe', workspaceId: other.workspaceId, contactId: ada });
		await expectError(await open('GET', `/mail/unsubscribe/${crossed}`), 404);
		await expectError(await open('POST', `/mail/unsubscribe/${crossed}`, 'List-Unsubscribe=One-Click'), 404);
		expect((await consent(ada)).at).toBeNull();
		// The other workspace's own link to its own contact opts out that contact only.
		const theirs = await contactWith(other.token, { name: 'Ada', email: 'ada@example.com' });
		const link = await signMailLink(env, { purpose: 'unsubscribe', workspaceId: other.workspaceId, contactId: theirs });
		expect((await open('POST', `/mail/unsubscribe/${link}`, 'List-Unsubscribe=One-Click')).status).toBe(200);
		expect((await consent(theirs)).at).not.toBeNull();
		expect((await consent(ada)).at).toBeNull();
		// An e-mail campaign of this workspace is nobody else's.
		const mine = await createEmailCampaign(token);
		for (const [method, path, body] of [
			['GET', `/v3/campaigns/${mine.id}`, undefined],
			['PATCH', `/v3/campaigns/${mine.id}`, { subject: 'Mine now' }],
			['POST', `/v3/campaigns/${mine.id}/send`, {}],
			['GET', `/v3/campaigns/${mine.id}/recipients`, undefined],
		] as const) {
			await expectError(await api(other.token, method, path, body), 404);
		}
		const res = await api(token, 'GET', `/v3/campaigns/${mine.id}`);
		expect(await res.json()).toMatchObject({ subject: 'News for {{ contact.name }}', status: 'draft' });
	});
});
