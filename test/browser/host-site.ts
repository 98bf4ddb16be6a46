// A customer's site for the engines that cannot answer a page's requests themselves (WebKit through WebDriver
// has nothing like Playwright's `page.route`): a real HTTP server on this machine that serves the pages a
// journey puts there. Reached as `localhost`, cross-origin to the Worker on 127.0.0.1, as a site is to Parley.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface HostPage {
	html: string;
	/** Response headers of the page (a Content-Security-Policy, say). */
	headers?: Record<string, string>;
	/** Other files beside the page, by name: `{ 'site.js': ... }` answers `<page address>site.js`. */
	files?: Record<string, { contentType: string; body: string }>;
}

export interface HostSite {
	/**
	 * Serves `page` and returns its address: every path under it answers the same page, so a journey may add a
	 * path and a query (`${url}landing?utm_source=...`) or navigate within the site.
	 */
	put(page: HostPage): string;
	close(): Promise<void>;
}

export async function startHostSite(): Promise<HostSite> {
	const pages = new Map<string, HostPage>();
	const server: Server = createServer((request, response) => {
		const [, id = '', name = ''] = new URL(request.url ?? '/', 'http://localhost').pathname.split('/');
		const page = pages.get(id);
		if (!page) {
			response.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such page');
			return;
		}
		const file = page.files?.[name];
		if (file) {
			response.writeHead(200, { 'Content-Type': file.contentType, 'Cache-Control': 'no-store' }).end(file.body);
			return;
		}
		response
			.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...page.headers })
			.end(page.html);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	if (typeof address !== 'object' || !address) throw new Error('the host site has no address');
	return {
		put(page) {
			const id = randomUUID();
			pages.set(id, page);
			return `http://localhost:${address.port}/${id}/`;
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
