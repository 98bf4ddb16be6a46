import { env, exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { publicConfigKey } from '../src/domain/widget/config';
import { api, expectError, seedOperator, seedWorkspace, widgetApi } from './factories';
import { gif, jpeg, PNG_1X1, png, SVG, webpExtended } from './images';

const LOGO_PATH = /^\/widget\/ws_[0-9A-Z]+\/logo\/[0-9a-f]{64}\.(png|jpg|webp|gif)$/;

/** PUT /v3/widget/logo with the image's bytes as the body, as the console or a curl sends it. */
function uploadLogo(token: string | null, body: Uint8Array, contentType: string) {
	const headers: Record<string, string> = { 'Content-Type': contentType };
	if (token !== null) headers.Authorization = `Bearer ${token}`;
	return exports.default.fetch(new Request('https://parley.test/v3/widget/logo', { method: 'PUT', body, headers }));
}

async function settingsOf(token: string) {
	return (await (await api(token, 'GET', '/v3/widget/settings')).json()) as { logoUrl: string | null };
}

async function logoKeys(workspaceId: string) {
	return (await env.FILES.list({ prefix: `logos/${workspaceId}/` })).objects.map((o) => o.key).sort();
}

afterEach(() => {
	vi.useRealTimers();
});

describe('PUT /v3/widget/logo', () => {
	it('stores a PNG under its hash and makes logoUrl its path, in the settings and the public config', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const res = await uploadLogo(token, PNG_1X1, 'image/png');
		expect(res.status).toBe(200);
		const { logoUrl } = (await res.json()) as { logoUrl: string };
		expect(logoUrl).toMatch(LOGO_PATH);
		expect(logoUrl.startsWith(`/widget/${workspaceId}/logo/`)).toBe(true);
		expect((await settingsOf(token)).logoUrl).toBe(logoUrl);
		// The edge copy was rewritten before the answer, and the public read serves it.
		const cached = (await env.WIDGET_CONFIG.get(publicConfigKey(workspaceId), 'json')) as { logoUrl: string };
		expect(cached.logoUrl).toBe(logoUrl);
		const config = (await (await widgetApi('GET', `/widget/${workspaceId}/config`)).json()) as { logoUrl: string };
		expect(config.logoUrl).toBe(logoUrl);
		expect(await logoKeys(workspaceId)).toEqual([`logos/${workspaceId}/${logoUrl.split('/').pop()}`]);
	});

	it('takes JPEG, WebP and GIF too, each told by its bytes', async () => {
		const { token } = await seedWorkspace();
		for (const [bytes, type, extension] of [
			[jpeg(200, 200), 'image/jpeg', 'jpg'],
			[webpExtended(200, 200), 'image/webp', 'webp'],
			[gif(64, 64), 'image/gif', 'gif'],
		] as const) {
			const res = await uploadLogo(token, bytes, type);
			expect(res.status).toBe(200);
			expect(((await res.json()) as { logoUrl: string }).logoUrl).toMatch(new RegExp(`\\.${extension}$`));
		}
	});

	const refused: Array<[string, Uint8Array, string, number, string]> = [
		['an SVG sent as image/svg+xml', SVG, 'image/svg+xml', 415, '"image/svg+xml" is not one'],
		['an SVG labelled image/png', SVG, 'image/png', 415, 'not a PNG, JPEG, WebP or GIF image'],
		[
			'a JPEG labelled image/png',
			jpeg(200, 200),
			'image/png',
			415,
			'is image/jpeg, but its Content-Type says image/png',
		],
		['a PDF labelled image/png', new TextEncoder().encode('%PDF-1.7 x'), 'image/png', 415, 'not a PNG'],
		['a body over 512 KiB', png(200, 200, 512 * 1024), 'image/png', 413, 'at most 512 KiB'],
		['a PNG of 4096x200 px', png(4096, 200), 'image/png', 422, 'at most 2048x2048'],
		['a PNG cut inside its header', png(200, 200).slice(0, 20), 'image/png', 422, 'gives no size'],
	];
	for (const [name, body, type, status, message] of refused) {
		it(`refuses ${name} with ${status}, storing and changing nothing`, async () => {
			const { workspaceId, token } = await seedWorkspace();
			const error = await expectError(await uploadLogo(token, body, type), status);
			expect(error.message).toContain(message);
			expect((await settingsOf(token)).logoUrl).toBeNull();
			expect(await logoKeys(workspaceId)).toEqual([]);
		});
	}

	it('needs the admin permission (403) and a credential (401)', async () => {
		const { workspaceId } = await seedWorkspace();
		const member = await seedOperator(workspaceId, ['conversations:read', 'messages:send']);
		await expectError(await uploadLogo(member.token, PNG_1X1, 'image/png'), 403);
		await expectError(await uploadLogo(null, PNG_1X1, 'image/png'), 401);
		expect(await logoKeys(workspaceId)).toEqual([]);
	});

	it('keeps the logo it replaced until the next change, then removes what is older', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const names: string[] = [];
		for (const side of [100, 200, 300]) {
			// Each change an hour after the previous: past the window that protects an upload still in flight.
			vi.useFakeTimers({ toFake: ['Date'] });
			vi.setSystemTime(Date.now() + 3_600_000 * (side / 100));
			const res = await uploadLogo(token, png(side, side), 'image/png');
			names.push(((await res.json()) as { logoUrl: string }).logoUrl.split('/').pop() ?? '');
		}
		const key = (name: string | undefined) => `logos/${workspaceId}/${name}`;
		expect(await logoKeys(workspaceId)).toEqual([key(names[1]), key(names[2])].sort());
		// The same image again changes nothing.
		const before = await env.WIDGET_CONFIG.get(publicConfigKey(workspaceId));
		expect((await uploadLogo(token, png(300, 300), 'image/png')).status).toBe(200);
		expect(await env.WIDGET_CONFIG.get(publicConfigKey(workspaceId))).toBe(before);
	});
});

describe('GET /widget/{workspaceId}/logo/{file}', () => {
	it('serves the bytes without a token: their type, a year of immutable caching, nosniff and no active content', async () => {
		const { token } = await seedWorkspace();
		const { logoUrl } = (await (await uploadLogo(token, PNG_1X1, 'image/png')).json()) as { logoUrl: string };
		const res = await widgetApi('GET', logoUrl);
		expect(res.status).toBe(200);
		expect(res.headers.get('Content-Type')).toBe('image/png');
		expect(res.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
		expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
		expect(res.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
		expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
		expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG_1X1);
	});

	it("is a 404 under another workspace's path, and for a name that is no logo's", async () => {
		const { token } = await seedWorkspace();
		const { logoUrl } = (await (await uploadLogo(token, PNG_1X1, 'image/png')).json()) as { logoUrl: string };
		const other = await seedWorkspace();
		const file = logoUrl.split('/').pop();
		await expectError(await widgetApi('GET', `/widget/${other.workspaceId}/logo/${file}`), 404);
		await expectError(await widgetApi('GET', `/widget/${other.workspaceId}/logo/..%2F..%2Ffiles%2Fx`), 404);
	});
});

describe('DELETE /v3/widget/logo', () => {
	it('clears logoUrl in the settings and the public config', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await uploadLogo(token, PNG_1X1, 'image/png');
		const res = await api(token, 'DELETE', '/v3/widget/logo');
		expect(res.status).toBe(200);
		expect(((await res.json()) as { logoUrl: unknown }).logoUrl).toBeNull();
		expect((await settingsOf(token)).logoUrl).toBeNull();
		const config = (await (await widgetApi('GET', `/widget/${workspaceId}/config`)).json()) as { logoUrl: unknown };
		expect(config.logoUrl).toBeNull();
	});

	it('needs the admin permission', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await uploadLogo(token, PNG_1X1, 'image/png');
		const member = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await api(member.token, 'DELETE', '/v3/widget/logo'), 403);
		expect((await settingsOf(token)).logoUrl).toMatch(LOGO_PATH);
	});
});

describe('PUT /v3/widget/settings with an uploaded logo path', () => {
	it("takes the workspace's own logo path but refuses another workspace's", async () => {
		const { token } = await seedWorkspace();
		const { logoUrl } = (await (await uploadLogo(token, PNG_1X1, 'image/png')).json()) as { logoUrl: string };
		await api(token, 'DELETE', '/v3/widget/logo');
		expect((await api(token, 'PUT', '/v3/widget/settings', { logoUrl })).status).toBe(200);
		const other = await seedWorkspace();
		const error = await expectError(await api(other.token, 'PUT', '/v3/widget/settings', { logoUrl }), 422);
		expect(error.message).toContain("json.logoUrl: is another workspace's logo");
		expect((await settingsOf(other.token)).logoUrl).toBeNull();
	});
});
