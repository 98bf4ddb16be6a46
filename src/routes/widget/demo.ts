/**
 * GET /demo: the demo site with the snippet for the demo workspace (scripts/dev.mjs passes it as
 * DEMO_WORKSPACE_ID). Without that variable, as in production, the page does not exist.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { demoPage } from '../../domain/widget/demo-page';
import { NotFound } from '../../lib/errors';

export const demo = new Hono<AppEnv>().get('/', (c) => {
	const workspaceId = c.env.DEMO_WORKSPACE_ID;
	if (!workspaceId) throw new NotFound('The demo page is served by `npm run dev` only.');
	return c.html(demoPage(new URL(c.req.url).origin, workspaceId));
});
