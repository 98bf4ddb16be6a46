import type { BrowserContext, Page } from 'playwright-core';
import { workspace } from './harness';
import { baseUrl } from './widget-page';

/** The console's sign-in form, filled in and sent (it does not wait for the result). */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
	await page.goto(`${baseUrl}/console/`);
	await page.getByLabel('E-mail').fill(email);
	await page.getByLabel('Password').fill(password);
	await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A new page of `context`, signed in to the console as workspace `n`'s admin, on the inbox. */
export async function consolePage(context: BrowserContext, n: number): Promise<Page> {
	const { email, password } = workspace(n);
	const page = await context.newPage();
	await signIn(page, email, password);
	await page.getByRole('link', { name: 'Inbox' }).waitFor();
	return page;
}
