// `npm run screenshots`: docs/console.md's picture of alerts: the navigation's unread counts beside Settings ›
// Notifications with its Alerts section. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { visitorStarts } from './visitor';
import { baseUrl } from './widget-page';

const browser = screenshotBrowser();

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots of alerts in the console', () => {
	it('the unread counts and Settings › Notifications', { timeout: 120_000 }, async () => {
		const { token, email, password, workspaceId, operatorId } = workspace(120);
		const mine = await visitorStarts(workspaceId, 'Hi, my parcel has not arrived');
		await api(baseUrl, token, 'PATCH', `/v3/conversations/${mine.conversationId}`, { assigneeId: operatorId });
		await visitorStarts(workspaceId, 'Do you ship to Porto?');
		await visitorStarts(workspaceId, 'Is the Ridge 2 in stock?');
		await api(baseUrl, token, 'PUT', '/v3/me/notifications/alerts', { sound: true });

		const context = await browser().newContext({ viewport: { width: 1280, height: 860 } });
		const page = await signedIn(context, email, password);
		await page.goto(`${baseUrl}/console/settings/notifications`);
		await page.getByRole('heading', { name: 'Alerts', exact: true }).waitFor();
		await page.getByLabel('Play a sound with each alert').waitFor();
		await page.getByLabel('Assigned to me while I am offline').waitFor();
		await expect.poll(() => page.title()).toBe('(3) Parley');
		await shot(page, 'console-alerts');
		await context.close();
	});
});
