import { describe, expect, it } from 'vitest';
import {
	bounce,
	campaignMails,
	contactWith,
	createEmailCampaign,
	recipients,
	settledMails,
} from './email-campaigns-helpers';
import { mailingWorkspace } from './email-outbound-helpers';
import { api, expectError, seedWorkspace } from './factories';

/** An e-mail campaign's preview and test send speak mail: the subject rendered, one mail, no conversation. */
describe('an e-mail campaign before it goes out', () => {
	it('previews its subject and body for a contact', async () => {
		const { token } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada', email: 'ada@example.com' });
		const campaign = await createEmailCampaign(token);
		const res = await api(token, 'POST', `/v3/campaigns/${campaign.id}/preview`, { contactId: ada });
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({
			contactId: ada,
			subject: 'News for Ada',
			text: 'Hi Ada, our *sale* starts today.',
		});
	});

	it('test-sends one mail to the contact, counted as no recipient, and posts into no conversation', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const ada = await contactWith(token, { name: 'Ada', email: 'ada@example.com' });
		const campaign = await createEmailCampaign(token);
		const res = await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId: ada });
		expect(res.status, await res.clone().text()).toBe(201);
		const sent = (await res.json()) as { conversationId: string | null; deliveryId: string; subject: string };
		expect(sent).toMatchObject({ conversationId: null, messageId: null, subject: 'News for Ada' });
		const [mail] = await settledMails(workspaceId, campaign.id, 1);
		expect(mail).toMatchObject({ id: sent.deliveryId, kind: 'campaign', status: 'sent', recipient: 'ada@example.com' });
		// A second test is a second mail; neither is a recipient, and the contact has no conversation.
		expect((await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId: ada })).status).toBe(201);
		expect(await campaignMails(workspaceId, campaign.id)).toHaveLength(2);
		expect(await recipients(campaign.id)).toEqual([]);
		const conversations = await api(token, 'GET', `/v3/conversations?contactId=${ada}`);
		expect(((await conversations.json()) as { data: unknown[] }).data).toEqual([]);
	});

	it('refuses a contact that cannot be mailed, and a workspace without a sender, with a 409', async () => {
		const { token, workspaceId } = await mailingWorkspace();
		const bounced = await contactWith(token, { name: 'Bo', email: 'bo@example.com' });
		await bounce(bounced);
		const phoneOnly = await contactWith(token, { name: 'Cy', phone: '+5511999990000' });
		const campaign = await createEmailCampaign(token);
		for (const contactId of [bounced, phoneOnly]) {
			await expectError(await api(token, 'POST', `/v3/campaigns/${campaign.id}/test`, { contactId }), 409);
		}
		expect(await campaignMails(workspaceId, campaign.id)).toEqual([]);

		const bare = await seedWorkspace();
		const ada = await contactWith(bare.token, { name: 'Ada', email: 'ada@example.com' });
		const unsent = await createEmailCampaign(bare.token);
		const refused = await expectError(
			await api(bare.token, 'POST', `/v3/campaigns/${unsent.id}/test`, { contactId: ada }),
			409,
		);
		expect(refused.message).toContain('No sender is set');
	});
});
