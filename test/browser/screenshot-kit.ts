// What the screenshot files share: one Chromium per file, the folder the README's pictures are in, and a
// console page signed in. The pictures are taken only with UPDATE_SCREENSHOTS=1 (`npm run screenshots`).
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { closeBrowser, launchBrowser } from './harness';
import { baseUrl } from './widget-page';

const DIR = 'docs/screenshots';

/** The file's Chromium, launched before its tests and closed after them. */
export function screenshotBrowser(): () => Browser {
	let browser: Browser;
	beforeAll(async () => {
		browser = await launchBrowser();
		mkdirSync(DIR, { recursive: true });
	});
	afterAll(closeBrowser);
	return () => browser;
}

export const shot = (page: Page, name: string) => page.screenshot({ path: `${DIR}/${name}.png` });

/** A console page of `context`, signed in, on the inbox. */
export async function signedIn(context: BrowserContext, email: string, password: string): Promise<Page> {
	const page = await context.newPage();
	await page.goto(`${baseUrl}/console/`);
	await page.getByLabel('E-mail').fill(email);
	await page.getByLabel('Password').fill(password);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.getByRole('link', { name: 'Inbox' }).waitFor();
	return page;
}
