// What the builders' browser tests share: reading the API, the canvas's nodes and the panel beside it, adding
// a step from the toolbar, and drawing a link with the mouse.
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { api } from './harness';
import { baseUrl } from './widget-page';

export async function read<T>(token: string, path: string): Promise<T> {
	const { status, body } = await api(baseUrl, token, 'GET', path);
	expect(status, JSON.stringify(body)).toBe(200);
	return body as T;
}

export const panel = (page: Page) => page.locator('.builder-panel');
export const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);

/** Adds a step of `type` from the toolbar (linked from the selected step's open `next`) and renames it `id`. */
export async function addStep(page: Page, type: string, id: string): Promise<void> {
	await page.getByRole('combobox', { name: 'Add a step…' }).selectOption(type);
	const field = panel(page).getByLabel('Step id');
	// The new step's form replaces the selected one's: its id is the type's (`data-entry-2`…) until renamed.
	await expect.poll(() => field.inputValue()).toMatch(new RegExp(`^${type.replace(/_/g, '-')}`));
	await node(page, await field.inputValue()).waitFor();
	await field.fill(id);
	await field.press('Enter');
	await node(page, id)
		.waitFor({ timeout: 10_000 })
		.catch(async (error) => {
			const ids = await page.locator('.react-flow__node').evaluateAll((ns) => ns.map((n) => n.dataset.id));
			throw new Error(`${error}: the canvas has ${ids.join(', ')}; the id field says ${await field.inputValue()}`);
		});
}

/** Draws a link with the mouse: from an outlet's handle of `from` to the top of `to`. */
/**
 * Where an element is once the canvas has stopped moving it (its layout and fit-view run in animation frames,
 * which a loaded machine spreads out): two reads a frame apart that agree.
 */
async function settledBox(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
	let last = await locator.boundingBox();
	for (let i = 0; i < 50; i++) {
		await locator.page().evaluate(() => new Promise((done) => requestAnimationFrame(() => done(null))));
		const now = await locator.boundingBox();
		if (last && now && Math.abs(now.x - last.x) < 0.5 && Math.abs(now.y - last.y) < 0.5) return now;
		last = now;
	}
	throw new Error('a handle is not on screen, or never stops moving');
}

export async function drag(page: Page, from: string, outlet: string, to: string): Promise<void> {
	const handle = node(page, from).locator(`[data-outlet="${outlet}"] .react-flow__handle`);
	const target = node(page, to).locator('.react-flow__handle-top');
	const a = await settledBox(handle);
	const b = await settledBox(target);
	await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
	await page.mouse.down();
	await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
	await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
	await page.mouse.up();
}

export interface Bot {
	id: string;
	draft: { start: string; steps: Array<Record<string, unknown>> };
	publishedVersion: number | null;
	enabled: boolean;
}
