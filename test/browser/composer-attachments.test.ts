// Attachments in both composers, in a real Chromium: the operator attaches by the paperclip and by pasting an
// image, sees the upload's progress and the preview, and the visitor's widget shows the image inline and the
// PDF as a named link; the visitor attaches in the widget and the operator sees it; a file of the wrong kind or
// too large says why in the composer before anything is sent, and nothing is posted.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts, conversations, kw, sendFromWidget, widgetPage } from './widget-page';

const newContext = browserContexts();

/** A valid 1x1 PNG, as base64 (so a page can build it too). */
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG = Buffer.from(PNG_B64, 'base64');

/** A PDF of `size` bytes: its header, then padding (the Worker tells a file by its first bytes). */
function pdf(size: number): Buffer {
	const bytes = Buffer.alloc(size, 0x20);
	bytes.write('%PDF-1.7\n');
	return bytes;
}

/** The texts and attachment names of a conversation's messages, as the API lists them. */
async function stored(token: string, conversationId: string) {
	const { body } = await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}/messages`);
	return (body as { data: Array<{ text: string; attachments: Array<{ name: string }> }> }).data;
}

/** A visitor on the site who has written `text`: their page and the conversation's id. */
async function visitorWith(n: number, text: string) {
	const { workspaceId, token } = workspace(n);
	const { page } = await widgetPage(await newContext(), workspaceId);
	await kw(page, 'open');
	await sendFromWidget(page, text);
	await expect.poll(async () => (await conversations(token)).length, { timeout: 15_000 }).toBeGreaterThan(0);
	const [latest] = await conversations(token);
	return { visitor: page, conversationId: latest?.id ?? '' };
}

/**
 * Dispatches a synthesized `type` event ('paste' or 'drop') carrying files built in the page: `files` are
 * [name, media type, base64 of the start, total size] (the rest zero bytes). `target` finds the element,
 * inside the widget's shadow root when `shadow`.
 */
async function transfer(
	page: Page,
	type: 'paste' | 'drop',
	target: string,
	files: Array<[string, string, string, number]>,
	shadow = false,
) {
	await page.evaluate(
		({ type, target, files, shadow }) => {
			const root = shadow ? (document.querySelector('parley-widget')?.shadowRoot ?? document) : document;
			const element = root.querySelector(target);
			if (!element) throw new Error(`no ${target}`);
			const data = new DataTransfer();
			for (const [name, mime, head, size] of files) {
				const bytes = new Uint8Array(size);
				bytes.set(Uint8Array.from(atob(head), (c) => c.charCodeAt(0)));
				data.items.add(new File([bytes], name, { type: mime }));
			}
			const init = { bubbles: true, cancelable: true, composed: true };
			const event =
				type === 'paste'
					? new ClipboardEvent('paste', { ...init, clipboardData: data })
					: new DragEvent('drop', { ...init, dataTransfer: data });
			element.dispatchEvent(event);
		},
		{ type, target, files, shadow },
	);
}

describe('attachments between the console and the widget', () => {
	it('the operator attaches by paperclip and paste with progress and previews; the visitor sees them, and sends one back', async () => {
		const { token } = workspace(124);
		const { visitor, conversationId } = await visitorWith(124, 'Can you send me the contract?');
		const page = await consolePage(await newContext(), 124);
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		const composer = page.locator('form.composer');
		await page.getByLabel('Reply', { exact: true }).waitFor();

		// The paperclip's picker: a PDF, staged with its name until sent.
		await page.getByLabel('Choose files').setInputFiles({
			name: 'contract.pdf',
			mimeType: 'application/pdf',
			buffer: pdf(3 * 1024 * 1024),
		});
		const staged = composer.getByRole('list', { name: 'Files' });
		await expect.poll(() => staged.textContent()).toContain('contract.pdf');
		// A pasted screenshot joins it, with its preview.
		await transfer(page, 'paste', '#composer', [['image.png', 'image/png', PNG_B64, PNG.length]]);
		await expect.poll(() => staged.locator('img').count()).toBe(1);
		expect(await staged.locator('img').getAttribute('src')).toMatch(/^blob:/);

		// Uploads slowed to about 1 MB/s, so the PDF's progress shows while it goes.
		const cdp = await page.context().newCDPSession(page);
		await cdp.send('Network.emulateNetworkConditions', {
			offline: false,
			latency: 0,
			downloadThroughput: -1,
			uploadThroughput: 1024 * 1024,
		});
		await page.getByLabel('Reply', { exact: true }).fill('Here they are.');
		await composer.getByRole('button', { name: 'Send', exact: true }).click();
		const progress = page.getByRole('progressbar', { name: 'Uploading contract.pdf' });
		await expect
			.poll(() => progress.evaluate((bar: HTMLProgressElement) => bar.value), { timeout: 10_000 })
			.toBeGreaterThan(0);
		await expect.poll(() => staged.count(), { timeout: 20_000 }).toBe(0);
		await cdp.send('Network.emulateNetworkConditions', {
			offline: false,
			latency: 0,
			downloadThroughput: -1,
			uploadThroughput: -1,
		});

		// The thread: the image inline (read with the operator's session), the PDF as a named link, then the text.
		const thread = page.locator('.messages');
		await expect.poll(() => thread.getByRole('link', { name: /contract\.pdf/ }).count(), { timeout: 15_000 }).toBe(1);
		const image = thread.locator('.attachments img[alt="image.png"]');
		await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 15_000 }).toBe(1);
		await expect.poll(() => thread.textContent()).toContain('Here they are.');
		expect((await stored(token, conversationId)).map((m) => m.text)).toEqual([
			'Can you send me the contract?',
			'contract.pdf',
			'image.png',
			'Here they are.',
		]);

		// The widget, live: the image inline, the PDF a link named by the file.
		const team = visitor.locator('parley-widget .msg.team');
		const inline = team.locator('img[alt="image.png"]');
		await expect.poll(() => inline.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 15_000 }).toBe(1);
		expect(await inline.getAttribute('src')).toMatch(/^blob:/);
		expect(await team.getByRole('link', { name: /contract\.pdf/ }).count()).toBe(1);

		// The visitor attaches a photo with the paperclip; the operator sees it inline.
		await visitor.locator('parley-widget input.picker').setInputFiles({
			name: 'tent.png',
			mimeType: 'image/png',
			buffer: PNG,
		});
		const mine = visitor.locator('parley-widget .msg.mine img[alt="tent.png"]');
		await expect.poll(() => mine.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 15_000 }).toBe(1);
		const theirs = thread.locator('.attachments img[alt="tent.png"]');
		await expect.poll(() => theirs.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 15_000 }).toBe(1);
	});

	it('says why a file of the wrong kind or too large is refused, before anything is sent, in both composers', async () => {
		const { token } = workspace(125);
		const { visitor, conversationId } = await visitorWith(125, 'Hello');
		const page = await consolePage(await newContext(), 125);
		await page.goto(`${baseUrl}/console/conversations/${conversationId}`);
		await page.getByLabel('Reply', { exact: true }).waitFor();
		const before = (await stored(token, conversationId)).length;

		// The console: a script named like an image, by the paperclip; a PNG over 10 MB, dropped.
		await page.getByLabel('Choose files').setInputFiles({
			name: 'cat.png',
			mimeType: 'image/png',
			buffer: Buffer.from('<script>alert(1)</script>'),
		});
		const refused = page.getByTestId('attach-refused');
		await expect.poll(() => refused.textContent()).toContain('“cat.png” cannot be sent: only PNG, JPEG');
		await transfer(page, 'drop', 'form.composer', [['huge.png', 'image/png', PNG_B64, 10 * 1024 * 1024 + 1]]);
		await expect.poll(() => refused.textContent()).toContain('“huge.png” cannot be sent: it is larger than 10 MB');
		expect(await page.locator('form.composer').getByRole('list', { name: 'Files' }).count()).toBe(0);

		// The widget: the same two, by the paperclip and a drop on the panel.
		await visitor.locator('parley-widget input.picker').setInputFiles({
			name: 'notes.txt',
			mimeType: 'text/plain',
			buffer: Buffer.from('just text'),
		});
		const error = visitor.locator('parley-widget .composer .error');
		await expect.poll(() => error.textContent()).toContain('“notes.txt” cannot be sent: only images');
		await transfer(visitor, 'drop', '.panel', [['big.pdf', 'application/pdf', 'JVBERi0=', 10 * 1024 * 1024 + 1]], true);
		await expect.poll(() => error.textContent()).toContain('“big.pdf” cannot be sent: it is larger than 10 MB');

		// Nothing was posted from either side.
		expect(await stored(token, conversationId)).toHaveLength(before);
		expect(await visitor.locator('parley-widget .msg.upload').count()).toBe(0);
	});
});
