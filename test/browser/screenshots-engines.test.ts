// `npm run screenshots` (UPDATE_SCREENSHOTS=1): the README's pictures of the widget on the demo site in each
// engine the machine has, a conversation open with the team's answer. Skipped in `npm test`.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoPage } from '../../src/domain/widget/demo-page';
import { ENGINE_LABELS, type EngineName, missing } from './engines';
import { engineHooks, logText, openChat, reply, send } from './journey-kit';
import { baseUrl, conversations, putSettings } from './widget-page';

/** The seeded workspace of each engine's picture (after the journeys' blocks). */
const WORKSPACES: Record<EngineName, number> = { chromium: 196, webkit: 197, firefox: 198 };

describe.runIf(process.env.UPDATE_SCREENSHOTS)('the widget in each engine, for the README', () => {
	for (const engine of ['chromium', 'webkit', 'firefox'] as const) {
		describe.skipIf(missing(engine) !== undefined)(ENGINE_LABELS[engine], () => {
			const journeyContext = engineHooks(engine);
			it(`widget-${engine}.png`, async () => {
				const j = await journeyContext(WORKSPACES[engine], { width: 900, height: 700 });
				try {
					await putSettings(j.token, { displayName: 'Acme Outdoor', primaryColor: '#2d6a4f' });
					await j.visit({
						html: demoPage(baseUrl, j.workspaceId).replace(
							'</body>',
							"<script>kw('on','ready',function(){window.__ready=true})</script></body>",
						),
					});
					await openChat(j.page);
					await send(j.page, `Hello from ${ENGINE_LABELS[engine]}!`);
					await expect.poll(async () => (await conversations(j.token)).length).toBe(1);
					const id = (await conversations(j.token))[0]?.id as string;
					await reply(j.token, id, `Hi! The same chat, *in ${ENGINE_LABELS[engine]}*.`);
					await expect.poll(() => logText(j.page)).toContain(`in ${ENGINE_LABELS[engine]}.`);
					writeFileSync(`docs/screenshots/widget-${engine}.png`, await j.page.screenshot());
				} finally {
					await j.close();
				}
			});
		});
	}
});
