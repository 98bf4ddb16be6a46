// `npm run screenshots`: the README's picture of attachments in the console: a conversation where the visitor
// sent a photo and the team answered with a PDF and a note. Skipped in `npm test`.
import { describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { screenshotBrowser, shot, signedIn } from './screenshot-kit';
import { baseUrl } from './widget-page';

const browser = screenshotBrowser();

/** A 64x40 PNG drawn in the page (a small picture, not a blank pixel), as bytes. */
const PICTURE = `(() => {
	const canvas = document.createElement('canvas');
	canvas.width = 64;
	canvas.height = 40;
	const g = canvas.getContext('2d');
	g.fillStyle = '#2f9e44'; g.fillRect(0, 0, 64, 40);
	g.fillStyle = '#ffd43b'; g.beginPath(); g.moveTo(8, 34); g.lineTo(32, 8); g.lineTo(56, 34); g.fill();
	return canvas.toDataURL('image/png').split(',')[1];
})()`;

describe.runIf(process.env.UPDATE_SCREENSHOTS)('screenshots of attachments in the console', () => {
	it('a conversation with an image and a file', { timeout: 120_000 }, async () => {
		// Workspace 126 is composer-attachments.test.ts's spare: nothing else writes to it.
		const { workspaceId, token, email, password } = workspace(126);
		const context = await browser().newContext({ viewport: { width: 1280, height: 860 } });
		const page = await signedIn(context, email, password);
		const picture = Buffer.from((await page.evaluate(PICTURE)) as string, 'base64');
		const session = await fetch(`${baseUrl}/widget/${workspaceId}/sessions`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: '{}',
		}).then((r) => r.json() as Promise<{ sessionToken: string }>);
		const visitor = { 'Parley-Session': session.sessionToken };
		const started = await fetch(`${baseUrl}/widget/${workspaceId}/conversations`, {
			method: 'POST',
			headers: { ...visitor, 'Content-Type': 'application/json' },
			body: JSON.stringify({ message: { text: 'The tent arrived torn, see the photo.', clientMessageId: 'shot-1' } }),
		}).then((r) => r.json() as Promise<{ conversation: { id: string } }>);
		const id = started.conversation.id;
		const photo = await fetch(
			`${baseUrl}/widget/${workspaceId}/conversations/${id}/files?name=tent.png&clientMessageId=shot-2`,
			{
				method: 'POST',
				headers: { ...visitor, 'Content-Type': 'application/octet-stream' },
				body: picture,
			},
		);
		expect(photo.status).toBe(201);
		const form = Buffer.from('%PDF-1.7\n% return form\n');
		const sent = await fetch(`${baseUrl}/v3/conversations/${id}/files?name=return-form.pdf`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream' },
			body: form,
		});
		expect(sent.status).toBe(201);
		await api(baseUrl, token, 'POST', '/v3/messages', {
			conversationId: id,
			text: 'Sorry about that! Print the return form above and we will send a new tent today.',
		});
		await page.goto(`${baseUrl}/console/conversations/${id}`);
		const image = page.locator('.attachments img[alt="tent.png"]');
		await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 15_000 }).toBe(64);
		await page.locator('.messages').getByText('Print the return form').waitFor();
		await shot(page, 'console-attachments');
		await context.close();
	});
});
