import { describe, expect, it } from 'vitest';
import { guardedFetch, OutboundError, refusal } from '../../src/lib/guarded-fetch';

const production = { HTTPS_ONLY: 'on' };
const local = { HTTPS_ONLY: 'off' };
const prod = { httpAllowed: false, loopbackAllowed: false };

/**
 * The remote side, standing in for the internet: answers by URL, and records every URL it was asked for, so
 * a test can tell that a refused hop was never called.
 */
function remote(routes: Record<string, () => Response>) {
	const called: string[] = [];
	const transport = (async (input: RequestInfo | URL) => {
		const url = String(input);
		called.push(url);
		const route = routes[url];
		if (!route) return new Response('not found', { status: 404 });
		return route();
	}) as typeof fetch;
	return { transport, called };
}

const redirect =
	(to: string, status = 302) =>
	() =>
		new Response(null, { status, headers: { Location: to } });

describe('guarded fetch', () => {
	it('refuses every address of the network Parley runs in, in every spelling', () => {
		const forbidden = [
			'http://api.example.com/',
			'https://127.0.0.1/',
			'https://2130706433/',
			'https://0x7f000001/',
			'https://0177.0.0.1/',
			'https://127.1/',
			'https://10.0.0.5/',
			'https://172.16.3.4/',
			'https://192.168.1.1/',
			'https://169.254.169.254/latest/meta-data/',
			'https://100.64.0.1/',
			'https://224.0.0.1/',
			'https://0.0.0.0/',
			'https://255.255.255.255/',
			'https://[::1]/',
			'https://[::]/',
			'https://[fe80::1]/',
			'https://[fc00::1]/',
			'https://[::ffff:127.0.0.1]/',
			'https://[::ffff:a9fe:a9fe]/',
			'https://[64:ff9b::a00:1]/',
			'https://[2002:7f00:1::]/',
			'https://localhost/',
			'https://localhost./',
			'https://metadata.google.internal./',
			'https://intranet./',
			'https://[::7f00:1]/',
			'https://[::a9fe:a9fe]/',
			'https://api.localhost/',
			'https://metadata.google.internal/',
			'https://printer.local/',
			'https://intranet/',
			'https://user:pass@api.example.com/',
			'https://api.example.com:22/',
			'ftp://api.example.com/',
			'not a url',
		];
		for (const url of forbidden) expect(refusal(url, prod), url).not.toBeNull();
		for (const url of [
			'https://api.example.com/v1?x=1',
			'https://93.184.216.34/',
			'https://[2606:2800:220:1::]/',
			'https://hooks.example.com:8443/',
		]) {
			expect(refusal(url, prod), url).toBeNull();
		}
	});

	it('allows loopback only with the test setting, and never in production', () => {
		expect(refusal('http://127.0.0.1:8788/', { httpAllowed: true, loopbackAllowed: true })).toBeNull();
		expect(refusal('http://127.0.0.1:8788/', { httpAllowed: true, loopbackAllowed: false })).not.toBeNull();
		expect(refusal('http://localhost:8787/health', { httpAllowed: true, loopbackAllowed: true })).toBeNull();
		expect(refusal('http://localhost:8787/health', { httpAllowed: true, loopbackAllowed: false })).not.toBeNull();
		expect(refusal('https://localhost/', prod)).not.toBeNull();
		// The setting is ignored where HTTPS is enforced.
		return expect(
			guardedFetch({ ...production, OUTBOUND_LOOPBACK: 'on' }, { url: 'https://127.0.0.1/' }, remote({})),
		).rejects.toThrow(/loopback/);
	});

	it('follows redirects by hand and checks every hop, never calling a refused one', async () => {
		const { transport, called } = remote({
			'https://a.example.com/start': redirect('/next'),
			'https://a.example.com/next': redirect('https://b.example.com/done', 301),
			'https://b.example.com/done': () =>
				new Response('{"ok":true}', { headers: { 'Content-Type': 'application/json' } }),
			'https://a.example.com/evil': redirect('http://169.254.169.254/latest/meta-data/'),
		});
		const ok = await guardedFetch(production, { url: 'https://a.example.com/start' }, { transport });
		expect(ok).toMatchObject({ status: 200, body: '{"ok":true}', url: 'https://b.example.com/done' });
		await expect(guardedFetch(production, { url: 'https://a.example.com/evil' }, { transport })).rejects.toThrow(
			/redirected to http:\/\/169\.254\.169\.254/,
		);
		expect(called.some((url) => url.includes('169.254'))).toBe(false);
	});

	it('sends credentials only to the origin they were configured for', async () => {
		const seen: Array<[string, Record<string, string>]> = [];
		const transport = (async (input: RequestInfo | URL, init?: RequestInit) => {
			seen.push([String(input), { ...(init?.headers as Record<string, string>) }]);
			if (String(input) === 'https://api.partner.com/x') return redirect('/y')();
			if (String(input) === 'https://api.partner.com/y') return redirect('https://elsewhere.example/z')();
			return new Response('ok');
		}) as typeof fetch;
		const headers = { Authorization: 'Bearer T', 'X-Api-Key': 'K', Accept: 'application/json' };
		await guardedFetch(production, { url: 'https://api.partner.com/x', headers }, { transport });
		const hop = { 'Parley-Hops': '1' };
		expect(seen).toEqual([
			['https://api.partner.com/x', { ...headers, ...hop }],
			['https://api.partner.com/y', { ...headers, ...hop }],
			['https://elsewhere.example/z', { Accept: 'application/json', ...hop }],
		]);
	});

	it('carries its own Parley-Hops on every hop: the count that led to the call plus one, whatever the caller set', async () => {
		const seen: Array<string | null> = [];
		const transport = (async (input: RequestInfo | URL, init?: RequestInit) => {
			seen.push(new Headers(init?.headers).get('Parley-Hops'));
			if (String(input) === 'https://a.example.com/x') return redirect('https://b.example.com/y', 307)();
			return new Response('ok');
		}) as typeof fetch;
		await guardedFetch(production, { url: 'https://b.example.com/y' }, { transport });
		// A step's own header cannot reset the count.
		const forged = { 'parley-hops': '0', 'PARLEY-HOPS': '0' };
		await guardedFetch(production, { url: 'https://a.example.com/x', headers: forged }, { transport, hops: 3 });
		expect(seen).toEqual(['1', '4', '4']);
	});

	it('refuses a redirect to a Parley inbound webhook, on any host and in any spelling, and calls one directly', async () => {
		const inbound = 'https://parley.acme.example/v3/workflows/webhook/wh_01JD3Q8Z6Y2V7K1N4M5P6R7S8T';
		const { transport, called } = remote({
			'https://out.example.com/307': redirect(inbound, 307),
			'https://out.example.com/encoded': redirect('https://other.example/v3/workflows/%77ebhook/wh_1', 307),
			'https://out.example.com/dots': redirect('https://other.example/x/../v3/Workflows/Webhook/wh_1', 302),
			'https://out.example.com/slashes': redirect('https://other.example//v3/workflows/webhook/wh_1', 307),
			[inbound]: () => new Response('{"runId":"run_1"}', { status: 202 }),
		});
		for (const from of ['307', 'encoded', 'dots', 'slashes']) {
			await expect(
				guardedFetch(production, { url: `https://out.example.com/${from}`, method: 'POST', body: '{}' }, { transport }),
				from,
			).rejects.toThrow(/Parley inbound webhook/);
		}
		expect(called.filter((url) => !url.startsWith('https://out.example.com/'))).toEqual([]);
		// Called directly it is allowed: the hop count bounds that loop.
		expect((await guardedFetch(production, { url: inbound, method: 'POST', body: '{}' }, { transport })).status).toBe(
			202,
		);
	});

	it('turns a POST answered with 303 into a GET, and stops after five redirects', async () => {
		const methods: string[] = [];
		const transport = (async (input: RequestInfo | URL, init?: RequestInit) => {
			methods.push(`${init?.method} ${String(input)} ${init?.body ?? ''}`);
			if (String(input).endsWith('/form')) return redirect('/thanks', 303)();
			if (String(input).includes('/loop')) return redirect(`/loop${methods.length}`)();
			return new Response('thanks');
		}) as typeof fetch;
		await guardedFetch(production, { url: 'https://x.example.com/form', method: 'POST', body: 'a=1' }, { transport });
		expect(methods).toEqual(['POST https://x.example.com/form a=1', 'GET https://x.example.com/thanks ']);
		await expect(guardedFetch(production, { url: 'https://x.example.com/loop' }, { transport })).rejects.toThrow(
			/more than 5 redirects/,
		);
	});

	it('refuses a body over the cap and a remote that does not answer in time', async () => {
		const big = remote({ 'https://x.example.com/big': () => new Response('x'.repeat(2048)) });
		await expect(
			guardedFetch(production, { url: 'https://x.example.com/big' }, { transport: big.transport, maxBytes: 1024 }),
		).rejects.toThrow(/larger than 1024 bytes/);
		const slow = (async (_input: RequestInfo | URL, init?: RequestInit) =>
			new Promise<Response>((_resolve, reject) => {
				init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
			})) as typeof fetch;
		const started = Date.now();
		await expect(
			guardedFetch(production, { url: 'https://x.example.com/slow' }, { transport: slow, timeoutMs: 200 }),
		).rejects.toThrow(OutboundError);
		expect(Date.now() - started).toBeLessThan(2_000);
	});

	it('calls plain http only where the deployment is local', async () => {
		const { transport } = remote({ 'http://api.example.com/': () => new Response('hi') });
		await expect(guardedFetch(production, { url: 'http://api.example.com/' }, { transport })).rejects.toThrow(/https/);
		expect((await guardedFetch(local, { url: 'http://api.example.com/' }, { transport })).body).toBe('hi');
	});
});

describe('guarded fetch: what a name resolves to', () => {
	const RESOLVER = 'https://dns.test/dns-query';
	const resolving = { ...production, OUTBOUND_RESOLVER: RESOLVER };

	/**
	 * The network with a DNS-over-HTTPS resolver in it (the JSON form Cloudflare's resolver answers): `zone`
	 * maps a name to its records; a name not in it is NXDOMAIN. Every URL asked for is recorded.
	 */
	function network(zone: Record<string, Array<{ type: 'A' | 'AAAA'; data: string }>>, sites: Record<string, string>) {
		const called: string[] = [];
		const transport = (async (input: RequestInfo | URL, init?: RequestInit) => {
			const url = new URL(String(input));
			called.push(url.toString());
			if (url.origin + url.pathname === RESOLVER) {
				expect(new Headers(init?.headers).get('Accept')).toBe('application/dns-json');
				const name = url.searchParams.get('name') ?? '';
				const type = url.searchParams.get('type');
				const records = zone[name];
				const Answer = (records ?? [])
					.filter((r) => r.type === type)
					.map((r) => ({ name, type: r.type === 'A' ? 1 : 28, TTL: 30, data: r.data }));
				return Response.json({ Status: records ? 0 : 3, Answer });
			}
			const body = sites[url.toString()];
			if (body === undefined) return new Response('not found', { status: 404 });
			return body.startsWith('redirect:') ? redirect(body.slice(9))() : new Response(body);
		}) as typeof fetch;
		return { transport, called };
	}

	it('calls a name whose every address is public', async () => {
		const { transport, called } = network(
			{
				'api.public.test': [
					{ type: 'A', data: '93.184.216.34' },
					{ type: 'AAAA', data: '2606:2800:220:1::' },
				],
			},
			{ 'https://api.public.test/hook': 'ok' },
		);
		expect((await guardedFetch(resolving, { url: 'https://api.public.test/hook' }, { transport })).body).toBe('ok');
		expect(called.filter((url) => url.startsWith(RESOLVER))).toHaveLength(2);
	});

	it('refuses a name that resolves to a private, loopback or metadata address, without calling it', async () => {
		const cases: Array<[string, 'A' | 'AAAA', string]> = [
			['inside.rebind.test', 'A', '10.0.0.5'],
			['loop.rebind.test', 'AAAA', '::1'],
			['meta.rebind.test', 'A', '169.254.169.254'],
			['mapped.rebind.test', 'AAAA', '::ffff:127.0.0.1'],
		];
		for (const [name, type, data] of cases) {
			// One public record beside the private one does not make the name safe.
			const { transport, called } = network(
				{
					[name]: [
						{ type: 'A', data: '93.184.216.34' },
						{ type, data },
					],
				},
				{},
			);
			const error = await guardedFetch(resolving, { url: `https://${name}/x` }, { transport }).catch((e) => e);
			expect(error, name).toBeInstanceOf(OutboundError);
			expect(error.message, name).toContain(`${name} resolves to a refused address`);
			expect(error.transient, name).toBe(false);
			expect(
				called.some((url) => url.startsWith(`https://${name}`)),
				name,
			).toBe(false);
		}
	});

	it('checks the name a redirect leads to as well', async () => {
		const { transport, called } = network(
			{
				'a.public.test': [{ type: 'A', data: '93.184.216.34' }],
				'b.rebind.test': [{ type: 'A', data: '192.168.1.1' }],
			},
			{ 'https://a.public.test/start': 'redirect:https://b.rebind.test/admin' },
		);
		await expect(guardedFetch(resolving, { url: 'https://a.public.test/start' }, { transport })).rejects.toThrow(
			/redirected to https:\/\/b\.rebind\.test\/admin: b\.rebind\.test resolves to a refused address/,
		);
		expect(called).not.toContain('https://b.rebind.test/admin');
	});

	it('fails a name that does not resolve as transient, and calls nothing', async () => {
		const { transport, called } = network({}, {});
		const error = await guardedFetch(resolving, { url: 'https://gone.public.test/' }, { transport }).catch((e) => e);
		expect(error).toBeInstanceOf(OutboundError);
		expect(error.message).toContain('gone.public.test does not resolve');
		expect(error.transient).toBe(true);
		expect(called.every((url) => url.startsWith(RESOLVER))).toBe(true);
	});

	it('asks no resolver for an address literal, nor when the deployment sets none', async () => {
		const { transport, called } = network({}, { 'https://93.184.216.34/': 'ip', 'https://api.public.test/': 'name' });
		expect((await guardedFetch(resolving, { url: 'https://93.184.216.34/' }, { transport })).body).toBe('ip');
		expect((await guardedFetch(production, { url: 'https://api.public.test/' }, { transport })).body).toBe('name');
		expect(called.some((url) => url.startsWith(RESOLVER))).toBe(false);
	});
});
