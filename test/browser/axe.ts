// axe-core in a page: its source injected (through the DevTools protocol, so the console's CSP does not stop
// it), run over the whole document (open shadow roots included: the widget's), and the serious and critical
// violations returned, each with the elements it found, so a failing test says what to fix.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
	id: string;
	impact: string;
	help: string;
	/** Each element found: its selector and what axe says is wrong with it. */
	nodes: string[];
}

/** The serious and critical violations axe finds in `page` as it is now. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
	if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(source);
	return page.evaluate(async () => {
		type Result = {
			id: string;
			impact: string | null;
			help: string;
			nodes: { target: unknown[]; failureSummary?: string }[];
		};
		const axe = (
			window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Result[] }> } }
		).axe;
		const { violations } = await axe.run(document, { resultTypes: ['violations'] });
		return violations
			.filter((v) => v.impact === 'serious' || v.impact === 'critical')
			.map((v) => ({
				id: v.id,
				impact: v.impact ?? '',
				help: v.help,
				nodes: v.nodes.map((n) => `${JSON.stringify(n.target)}: ${n.failureSummary ?? ''}`),
			}));
	});
}
