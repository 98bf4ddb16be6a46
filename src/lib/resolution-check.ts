/**
 * What a host name resolves to, checked before the outbound guard calls it: a public name a workspace
 * configured (or a redirect named) that resolves to a private, loopback or metadata address is refused,
 * like the address itself would be.
 *
 * A Worker sees no socket, so the resolution is read where Workers' own `fetch` reads it: Cloudflare's DNS
 * resolver (Cloudflare documents that a Worker's subrequests resolve through it), asked over DNS-over-HTTPS
 * in its JSON form (`OUTBOUND_RESOLVER`, `https://cloudflare-dns.com/dns-query` in wrangler.toml). Every A and
 * AAAA record must be public unicast. The fetch that follows resolves again by itself, so a name whose owner
 * changes its answer between the two (DNS rebinding, a TTL of 0) is not caught here: that gap is left to
 * Cloudflare's network, whose edge does not connect to private or loopback addresses (its 1002 "restricted"
 * answer). An empty `OUTBOUND_RESOLVER` turns the check off (the Workers tests' stand-in networks
 * have no resolver; the tests of this check give them one).
 */
import { addressRefusal, isAddress } from './public-address';

/** Why the name may not be called (refused: final), or why it could not be resolved (unresolved: try later). */
export type ResolutionProblem = { refused: string } | { unresolved: string };

interface DnsJsonAnswer {
	Status?: number;
	Answer?: Array<{ type?: number; data?: string; TTL?: number }>;
}

const A = 1;
const AAAA = 28;
/** How long an answer is trusted at most, whatever its TTL (seconds), and how many names are kept. */
const MAX_CACHE_SECONDS = 60;
const MAX_CACHED = 500;
const cache = new Map<string, { problem: ResolutionProblem | null; until: number }>();

async function lookup(
	resolver: string,
	host: string,
	type: 'A' | 'AAAA',
	transport: typeof fetch,
	signal?: AbortSignal,
): Promise<DnsJsonAnswer> {
	const url = new URL(resolver);
	url.searchParams.set('name', host);
	url.searchParams.set('type', type);
	const response = await transport(url.toString(), {
		headers: { Accept: 'application/dns-json' },
		...(signal ? { signal } : {}),
	});
	if (!response.ok) throw new Error(`the resolver answered ${response.status}`);
	return (await response.json()) as DnsJsonAnswer;
}

/**
 * Resolves `host` (a name, not an address literal) through `resolver` and judges every address it has; null
 * when all are public. Answers are kept for their TTL (at most a minute) in this isolate.
 */
export async function resolutionRefusal(
	resolver: string | undefined,
	host: string,
	transport: typeof fetch,
	signal?: AbortSignal,
	now = Date.now(),
): Promise<ResolutionProblem | null> {
	if (!resolver) return null;
	const key = host.toLowerCase();
	const known = cache.get(key);
	if (known && known.until > now) return known.problem;
	let answers: DnsJsonAnswer[];
	try {
		answers = await Promise.all([
			lookup(resolver, key, 'A', transport, signal),
			lookup(resolver, key, 'AAAA', transport, signal),
		]);
	} catch (error) {
		return { unresolved: `${host} could not be resolved: ${error instanceof Error ? error.message : String(error)}` };
	}
	// NXDOMAIN (3) or a server failure: nothing to judge, and maybe there will be later.
	const failed = answers.find((a) => a.Status !== 0);
	if (failed) return { unresolved: `${host} does not resolve (DNS status ${failed.Status})` };
	const records = answers.flatMap((a) => a.Answer ?? []).filter((r) => r.type === A || r.type === AAAA);
	let problem: ResolutionProblem | null = null;
	if (records.length === 0) problem = { unresolved: `${host} has no address` };
	for (const record of records) {
		const data = record.data ?? '';
		const refused = isAddress(data) ? addressRefusal(data) : `${JSON.stringify(data)} is not an address`;
		if (refused) {
			problem = { refused: `${host} resolves to a refused address: ${refused}` };
			break;
		}
	}
	const ttl = Math.min(MAX_CACHE_SECONDS, ...records.map((r) => r.TTL ?? 0));
	if (problem === null || 'refused' in problem) {
		if (cache.size >= MAX_CACHED) cache.clear();
		cache.set(key, { problem, until: now + ttl * 1000 });
	}
	return problem;
}
