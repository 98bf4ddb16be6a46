import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { publicConfigKey, publishPublicConfig, readPublicConfig } from '../src/domain/widget/config';
import { api, db, seedWorkspace, widgetApi } from './factories';

/**
 * The real KV namespace, with `beforePut` run before the first write that goes through it: the moment a
 * concurrent request would have to land to make the write stale.
 */
function kvWithPause(beforePut: () => Promise<void>): KVNamespace {
	let paused = false;
	return new Proxy(env.WIDGET_CONFIG, {
		get(target, property) {
			if (property !== 'put') {
				const value = Reflect.get(target, property, target);
				return typeof value === 'function' ? value.bind(target) : value;
			}
			return async (...args: Parameters<KVNamespace['put']>) => {
				if (!paused) {
					paused = true;
					await beforePut();
				}
				return target.put(...args);
			};
		},
	});
}

async function publicColor(workspaceId: string) {
	const res = await widgetApi('GET', `/widget/${workspaceId}/config`);
	expect(res.status).toBe(200);
	return ((await res.json()) as { primaryColor: string; version: number }).primaryColor;
}

describe('the public config in KV', () => {
	it('keeps the copy of a settings save that lands while a cache miss writes the defaults', async () => {
		const { workspaceId, token } = await seedWorkspace();
		// The miss read D1 (the defaults, version 0); the save commits and writes KV before the miss writes.
		const kv = kvWithPause(async () => {
			expect((await api(token, 'PUT', '/v3/widget/settings', { primaryColor: '#123456' })).status).toBe(200);
		});
		const served = await readPublicConfig(db, kv, workspaceId);
		expect(served?.version).toBe(0);
		expect(await publicColor(workspaceId)).toBe('#123456');
	});

	it('keeps the copy of a settings save that committed before the miss wrote, whatever the order of KV writes', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const json = JSON.stringify({ workspaceId, version: 0, primaryColor: '#1f6feb' });
		// The save commits in D1 and its KV write lands first; the miss's stale write comes after it.
		const kv = kvWithPause(async () => {
			await api(token, 'PUT', '/v3/widget/settings', { primaryColor: '#abcdef' });
		});
		await publishPublicConfig(db, kv, workspaceId, json);
		expect(await publicColor(workspaceId)).toBe('#abcdef');
	});

	it('never writes a copy over one of a newer version', async () => {
		const { workspaceId, token } = await seedWorkspace();
		expect((await api(token, 'PUT', '/v3/widget/settings', { primaryColor: '#654321' })).status).toBe(200);
		const newer = await env.WIDGET_CONFIG.get(publicConfigKey(workspaceId));
		expect((JSON.parse(newer ?? '{}') as { version?: number }).version).toBeGreaterThan(1);
		await publishPublicConfig(db, env.WIDGET_CONFIG, workspaceId, JSON.stringify({ workspaceId, version: 1 }));
		expect(await env.WIDGET_CONFIG.get(publicConfigKey(workspaceId))).toBe(newer);
	});

	it('answers a cache miss from D1 even when KV refuses the write', async () => {
		const { workspaceId } = await seedWorkspace();
		const refusing = new Proxy(env.WIDGET_CONFIG, {
			get(target, property) {
				if (property === 'put') return () => Promise.reject(new Error('KV PUT failed: 429 Too Many Requests'));
				const value = Reflect.get(target, property, target);
				return typeof value === 'function' ? value.bind(target) : value;
			},
		});
		const read = await readPublicConfig(db, refusing, workspaceId);
		expect(read?.version).toBe(0);
		expect(JSON.parse(read?.json ?? '{}')).toMatchObject({ workspaceId, primaryColor: '#1f6feb' });
		expect(await env.WIDGET_CONFIG.get(publicConfigKey(workspaceId))).toBeNull();
	});
});
