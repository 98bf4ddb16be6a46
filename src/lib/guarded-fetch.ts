/**
 * The one way Parley calls an address a workspace configured (a bot's integration, a scenario's HTTP request,
 * an outbound webhook): every hop is checked before it is made, so a workspace cannot point Parley at the
 * network it runs in.
 *
 * - https only, unless the deployment runs locally (`HTTPS_ONLY` off);
 * - no credentials in the URL (they go in headers), no port but the scheme's own or ≥ 1024;
 * - an IP literal must be public unicast (ipaddr.js decides: no loopback, private, link-local, CGNAT,
 *   multicast, reserved, unspecified; IPv4-mapped IPv6 is judged as its IPv4; NAT64, 6to4 and Teredo forms
 *   are refused). Decimal, octal and hex spellings (`http://2130706433/`) are normalised by the URL parser
 *   first, so they are judged as the address they are;
 * - host names of the local network (`localhost`, `*.local`, `*.internal`, single labels) are refused;
 * - redirects are followed by hand, each new location checked again, five at most; one to another origin
 *   carries no credential (only Accept, Accept-Language, Content-Type and User-Agent follow it);
 * - a redirect to a Parley inbound webhook (on any host: see `isParleyInbound`) is refused;
 * - every hop carries `Parley-Hops` (src/lib/parley-hops.ts), set here whatever the caller's headers say;
 * - 10 s for the whole exchange, and a response body cut at 1 MiB (an error, not a truncated body).
 *
 * - a host name must resolve to public unicast addresses only (`resolution-check.ts`: every A and AAAA record,
 *   read from Cloudflare's resolver before each hop; a name that does not resolve is a transient failure).
 *
 * A test-only setting, `OUTBOUND_LOOPBACK=on`, lets loopback (and `localhost`)
 * through for local test servers; it is ignored unless `HTTPS_ONLY` is off (never in production).
 */

import { HOPS_HEADER, isParleyInbound } from './parley-hops';
import { addressRefusal, isAddress } from './public-address';
import { resolutionRefusal } from './resolution-check';

export const FETCH_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;

/** An outbound call refused or failed, with the reason a builder can act on. */
export class OutboundError extends Error {
	override readonly name: string = 'OutboundError';
	/** A timeout or a failed connection: trying again later may succeed (a refusal by the guard never does). */
	readonly transient: boolean;
	constructor(message: string, options?: ErrorOptions & { transient?: boolean }) {
		super(message, options);
		this.transient = options?.transient ?? false;
	}
}

/** A response whose body passed the cap the caller set (a file larger than it takes). */
export class ResponseTooLarge extends OutboundError {
	override readonly name = 'ResponseTooLarge';
}

export interface OutboundRequest {
	url: string;
	method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
	headers?: Record<string, string>;
	/** Text, or bytes sent as they are (an encrypted push message). */
	body?: string | Uint8Array;
}

export interface OutboundResponse {
	status: number;
	headers: Record<string, string>;
	/** The body as text (UTF-8). */
	body: string;
	/** The body's bytes, as received (a file's, which text would garble). */
	bytes: Uint8Array;
	/** The address that answered, after redirects. */
	url: string;
}

interface Settings {
	httpAllowed: boolean;
	loopbackAllowed: boolean;
	/** The DNS-over-HTTPS endpoint names are resolved through before a call (empty: not checked). */
	resolver?: string;
}

/** What the guard reads of the deployment's settings. */
type GuardEnv = Pick<Env, 'HTTPS_ONLY'> & { OUTBOUND_LOOPBACK?: string; OUTBOUND_RESOLVER?: string };

function settingsOf(env: GuardEnv): Settings {
	const local = env.HTTPS_ONLY === 'off';
	return {
		httpAllowed: local,
		loopbackAllowed: local && env.OUTBOUND_LOOPBACK === 'on',
		...(env.OUTBOUND_RESOLVER ? { resolver: env.OUTBOUND_RESOLVER } : {}),
	};
}

/** What a URL's host name resolves to, judged (a URL that `refusal` let through); nothing for an address. */
function resolutionOf(url: string, settings: Settings, transport: typeof fetch, signal: AbortSignal) {
	const host = hostOf(new URL(url));
	if (isAddress(host) || (settings.loopbackAllowed && isLocalhost(host))) return null;
	return resolutionRefusal(settings.resolver, host, transport, signal);
}

/** A URL's host as the guard judges it: an IPv6 address without brackets, a name without its trailing dot
 * (which names the same host: "localhost." is localhost). */
function hostOf(url: URL): string {
	return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

function isLocalhost(host: string): boolean {
	return host === 'localhost' || host.endsWith('.localhost');
}

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home|corp|localdomain)$/i;

/** Why a URL may not be called (the first rule it breaks), or null when it may. */
export function refusal(raw: string, settings: Settings): string | null {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return 'not a URL';
	}
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && settings.httpAllowed)) return 'must be an https URL';
	if (url.username || url.password) return 'must not carry credentials (send them in a header)';
	const port = url.port === '' ? null : Number(url.port);
	if (port !== null && port < 1024 && port !== 443 && port !== 80) return `port ${port} is not allowed`;
	const host = hostOf(url);
	if (isAddress(host)) return addressRefusal(host, settings.loopbackAllowed);
	// `localhost` is loopback by definition: a local test server's name, where loopback is let through.
	if (settings.loopbackAllowed && isLocalhost(host)) return null;
	if (!host.includes('.')) return `${host} is not a public host name`;
	if (LOCAL_NAMES.test(host)) return `${host} is a local network name`;
	return null;
}

/** Why this deployment would refuse to call `url`, or null: a check when an address is configured. */
export function urlRefusal(env: GuardEnv, url: string): string | null {
	return refusal(url, settingsOf(env));
}

/** The headers that may follow a redirect to another origin: none that carries a credential. */
const PORTABLE = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

function portableHeaders(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => PORTABLE.has(name.toLowerCase())));
}

/** Reads a body up to the cap; over it, an OutboundError, or (`truncate`) what came up to the cap. */
async function cappedBytes(response: Response, maxBytes: number, overflow: 'refuse' | 'truncate'): Promise<Uint8Array> {
	const reader = response.body?.getReader();
	if (!reader) return new Uint8Array(0);
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		if (size + value.byteLength > maxBytes) {
			await reader.cancel();
			if (overflow === 'refuse') throw new ResponseTooLarge(`the response is larger than ${maxBytes} bytes`);
			chunks.push(value.subarray(0, maxBytes - size));
			size = maxBytes;
			break;
		}
		size += value.byteLength;
		chunks.push(value);
	}
	const all = new Uint8Array(size);
	let at = 0;
	for (const chunk of chunks) {
		all.set(chunk, at);
		at += chunk.byteLength;
	}
	return all;
}

/**
 * Calls a configured address under the rules above. `transport` is the network (the runtime's `fetch`); a
 * test passes the remote's stand-in. Throws OutboundError with the reason when a hop is refused, the chain
 * is too long, the time runs out or the body is too large.
 */
export async function guardedFetch(
	env: GuardEnv,
	request: OutboundRequest,
	options: {
		timeoutMs?: number;
		maxBytes?: number;
		transport?: typeof fetch;
		/** false: a 3xx is the answer (a webhook delivery must reach its URL, not a GET somewhere else). */
		followRedirects?: boolean;
		/** `truncate`: a body over `maxBytes` is cut there instead of refused (only its start is wanted). */
		overflow?: 'refuse' | 'truncate';
		/** The Parley hops that led to the work making this call (a run's count); the call carries one more. */
		hops?: number;
	} = {},
): Promise<OutboundResponse> {
	const settings = settingsOf(env);
	const transport = options.transport ?? fetch;
	const signal = AbortSignal.timeout(options.timeoutMs ?? FETCH_TIMEOUT_MS);
	let url = request.url;
	let method = request.method ?? 'GET';
	let body = request.body;
	// The count is ours to set: a step's own header of that name would reset it.
	let headers = Object.fromEntries(
		Object.entries(request.headers ?? {}).filter(([name]) => name.toLowerCase() !== HOPS_HEADER.toLowerCase()),
	);
	const hops = { [HOPS_HEADER]: String((options.hops ?? 0) + 1) };
	try {
		for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
			const problem = refusal(url, settings);
			if (problem) throw new OutboundError(hop === 0 ? problem : `redirected to ${url}: ${problem}`);
			if (hop > 0 && isParleyInbound(url)) {
				throw new OutboundError(`redirected to ${url}: a Parley inbound webhook is never reached by a redirect`);
			}
			const resolved = await resolutionOf(url, settings, transport, signal);
			if (resolved) {
				const reason = 'refused' in resolved ? resolved.refused : resolved.unresolved;
				throw new OutboundError(hop === 0 ? reason : `redirected to ${url}: ${reason}`, {
					transient: 'unresolved' in resolved,
				});
			}
			const response = await transport(url, {
				method,
				headers: { ...headers, ...hops },
				body: method === 'GET' ? undefined : body,
				redirect: 'manual',
				signal,
			});
			const location = response.headers.get('Location');
			if (response.status >= 300 && response.status < 400 && location && options.followRedirects !== false) {
				await response.body?.cancel();
				const from = new URL(url);
				url = new URL(location, url).toString();
				// Credentials and the caller's own headers are for the origin they were configured for: a
				// redirect elsewhere keeps only what describes the content.
				if (new URL(url).origin !== from.origin) headers = portableHeaders(headers);
				// As browsers do: a 303, or a 301/302 after a POST, continues as a GET without the body.
				if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
					method = 'GET';
					body = undefined;
					headers = Object.fromEntries(
						Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'),
					);
				}
				continue;
			}
			const bytes = await cappedBytes(response, options.maxBytes ?? MAX_RESPONSE_BYTES, options.overflow ?? 'refuse');
			const text = new TextDecoder().decode(bytes);
			return { status: response.status, headers: Object.fromEntries(response.headers), body: text, bytes, url };
		}
		throw new OutboundError(`more than ${MAX_REDIRECTS} redirects`);
	} catch (error) {
		if (error instanceof OutboundError) throw error;
		if (signal.aborted) {
			throw new OutboundError(`no answer within ${(options.timeoutMs ?? FETCH_TIMEOUT_MS) / 1000} s`, {
				transient: true,
			});
		}
		throw new OutboundError(`the call failed: ${error instanceof Error ? error.message : String(error)}`, {
			cause: error,
			transient: true,
		});
	}
}
