// The template preview of the builder's text fields in a real Chromium against `wrangler dev`: a bot made through
// the API opened on the canvas, its greeting previewed with the sample contact by the API's own Liquid engine,
// then a filter that does not exist shown as the problem the API finds.
import type { BrowserContext, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, workspace } from './harness';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();
let context: BrowserContext;

beforeEach(async () => {
	context = await newContext({ viewport: { width: 1400, height: 1000 } });
});

const panel = (page: Page) => page.locator('.builder-panel');
const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);

describe('the template preview', () => {
	it('renders a step’s text with sample values, and shows why a template is refused', async () => {
		const { token } = workspace(105);
		const made = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Greeting preview',
			trigger: { kind: 'manual' },
			definition: {
				start: 'hello',
				steps: [
					{ id: 'hello', type: 'send_message', text: 'Hi {{ contact.name | default: "there" }}!', next: 'bye' },
					{ id: 'bye', type: 'end', message: 'Bye!' },
				],
			},
		});
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		const id = (made.body as { id: string }).id;

		const page = await consolePage(context, 105);
		page.setDefaultTimeout(15_000);
		await page.goto(`${baseUrl}/console/bots/${id}`);
		await node(page, 'hello').click();
		const text = panel(page).getByLabel('Text', { exact: true });
		const field = panel(page)
			.locator('.template-field')
			.filter({ has: page.getByLabel('Text', { exact: true }) });
		await field.getByRole('button', { name: 'Preview' }).click();
		const preview = panel(page).getByRole('status', { name: 'Preview with sample values' });
		await expect.poll(() => preview.textContent()).toBe('Hi Ana Souza!');

		await text.fill('{{ name | nosuchfilter }}');
		await expect.poll(() => preview.textContent()).toContain('nosuchfilter');
		await expect.poll(() => preview.getAttribute('class')).toContain('preview-problem');

		// Turned off, the preview is gone; previewing saved nothing (the draft is the one made above).
		await field.getByRole('button', { name: 'Preview' }).click();
		await expect.poll(() => preview.count()).toBe(0);
		const saved = await api(baseUrl, token, 'GET', `/v3/bots/${id}`);
		expect((saved.body as { draft: { steps: Array<{ text?: string }> } }).draft.steps[0]?.text).toBe(
			'Hi {{ contact.name | default: "there" }}!',
		);
	});
});
