// The API reference at /docs in a real Chromium. The machine running the browser tests has no internet, as an
// operator's laptop on a plane or a locked-down network may not: the page must draw from the Worker alone.
import { beforeEach, describe, expect, it } from 'vitest';
import { baseUrl, browserContexts } from './widget-page';

const newContext = browserContexts();

describe('GET /docs', () => {
	let requested: string[];
	let violations: string[];
	const page = async () => {
		const context = await newContext();
		const opened = await context.newPage();
		opened.on('request', (request) => requested.push(request.url()));
		// Chromium reports each Content-Security-Policy refusal on the console.
		opened.on('console', (message) => {
			if (message.text().includes('Content Security Policy')) violations.push(message.text());
		});
		return opened;
	};

	beforeEach(() => {
		requested = [];
		violations = [];
	});

	it('draws the reference of the API document with every request to its own origin', async () => {
		const docs = await page();
		await docs.goto(`${baseUrl}/docs`);
		await docs.getByText('List conversations, most recent activity first').first().waitFor({ timeout: 45_000 });
		await expect.poll(() => requested).toContain(`${baseUrl}/v3/openapi.json`);
		const elsewhere = requested.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== baseUrl);
		expect(elsewhere).toEqual([]);
		expect(violations).toEqual([]);
	});
});
