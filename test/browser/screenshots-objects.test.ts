// `npm run screenshots`: the README's pictures of the objects managed in the console: Deals › Manage funnels
// (a funnel's stages, ordered by drag or by their arrows) and the campaign composer with its live preview and
// its audience's count. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl } from './widget-page';

const browser = screenshotBrowser();

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots of funnels and campaigns in the console', () => {
	it('Manage funnels, and a campaign being composed', { timeout: 120_000 }, async () => {
		const { token, email, password } = workspace(138);
		const call = async (method: string, path: string, body?: unknown) => {
			const res = await api(baseUrl, token, method, path, body);
			expect(res.status, `${method} ${path}`).toBeLessThan(300);
			return res.body as { id: string };
		};
		await call('POST', '/v3/funnels', { name: 'Sales', stages: ['Lead', 'Qualified', 'Proposal', 'Negotiation'] });
		await call('POST', '/v3/funnels', { name: 'Partners', stages: ['Intro', 'Pilot', 'Signed'] });
		for (const name of ['Ana Souza', 'Bruno Costa', 'Carla Dias']) {
			const contact = await call('POST', '/v3/contacts', {
				name,
				email: `${name.split(' ')[0]?.toLowerCase()}@example.com`,
			});
			await call('PUT', `/v3/contacts/${contact.id}/tags/vip`);
		}
		const campaign = await call('POST', '/v3/campaigns', {
			name: 'Black Friday',
			channel: 'widget',
			template:
				'Hi {{ contact.name | split: " " | first }}, our sale starts today: 30% off for {{ "VIP" | downcase }} customers!',
			audience: { kind: 'filter', tags: ['vip'] },
		});

		const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/deals/funnels`);
		await page.getByRole('region', { name: 'Partners' }).waitFor();
		await shot(page, 'console-funnels');

		// Tall enough for the composer, its live preview and the saved message's preview with the audience's count.
		await page.setViewportSize({ width: 1280, height: 1560 });
		await page.goto(`${baseUrl}/console/campaigns/${campaign.id}`);
		await page.getByTestId('audience-count').waitFor();
		await expect.poll(() => page.locator('#campaign-template-preview').textContent()).toContain('Hi Ana');
		await shot(page, 'console-campaign-composer');
		await context.close();
	});
});
