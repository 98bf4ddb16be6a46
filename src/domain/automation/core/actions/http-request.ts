/**
 * HTTP request, performed: the call goes through the one guarded fetch (https only, public addresses only,
 * redirects checked hop by hop, 10 s, 1 MiB). A JSON answer is parsed, so a step maps its fields into
 * variables; a refused call, a timeout or a 4xx/5xx answer is the step's error, with the answer kept in its log.
 */
import { encodeBase64 } from '../../../../auth/secrets';
import { climbs, type HttpRequest } from '../../../../engines/actions/http-request';
import { presetRequest } from '../../../../engines/actions/presets';
import { guardedFetch } from '../../../../lib/guarded-fetch';
import { type ActionContext, type ActionResult, given, refused, refusedOn } from '../context';

const USER_AGENT = 'Parley-Automation/1 (+https://github.com/parley)';

/** The request headers: the step's, then its authentication, then JSON defaults where it set none. */
function requestHeaders(request: HttpRequest): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers ?? {})) {
		if (given(value) !== undefined) headers[name] = value.trim();
	}
	const auth = request.auth;
	if (auth?.kind === 'bearer') headers.Authorization = `Bearer ${auth.token.trim()}`;
	if (auth?.kind === 'basic')
		headers.Authorization = `Basic ${encodeBase64(new TextEncoder().encode(`${auth.username}:${auth.password}`))}`;
	if (auth?.kind === 'api_key') headers[auth.header] = auth.value.trim();
	const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
	if (!has('accept')) headers.Accept = 'application/json';
	if (!has('user-agent')) headers['User-Agent'] = USER_AGENT;
	if (request.body !== undefined && request.method !== 'GET' && !has('content-type'))
		headers['Content-Type'] = 'application/json';
	return headers;
}

/** A preset's request with the headers every call carries. */
function withDefaults<R extends { headers: Record<string, string> }>(request: R): R {
	return { ...request, headers: { Accept: 'application/json', 'User-Agent': USER_AGENT, ...request.headers } };
}

/** A response body as data: parsed when it is JSON, the text otherwise. */
function responseData(body: string, contentType: string | undefined): unknown {
	const looksJson = /\bjson\b/i.test(contentType ?? '') || /^\s*[[{]/.test(body);
	if (!looksJson) return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

export function performHttpRequest(ctx: ActionContext, request: HttpRequest): Promise<ActionResult> {
	return refusedOn(async () => {
		const outbound = request.preset
			? withDefaults(presetRequest(request.preset))
			: {
					url: given(request.url) ?? '',
					method: request.method ?? 'GET',
					headers: requestHeaders(request),
					...(request.body !== undefined && request.method !== 'GET' ? { body: request.body } : {}),
				};
		if (outbound.url === '') return refused('url: rendered empty');
		if (climbs(outbound.url))
			return refused(`url: ${outbound.url} has a . or .. segment (encode values with url_encode)`);
		const response = await guardedFetch(ctx.env, outbound, {
			...(ctx.transport ? { transport: ctx.transport } : {}),
			...(ctx.hops === undefined ? {} : { hops: ctx.hops }),
		});
		const data = responseData(response.body, response.headers['content-type']);
		if (response.status >= 400) {
			const failed = refused(`the answer was HTTP ${response.status}`, { status: response.status, body: data });
			// A server error or a rate limit may pass; a 4xx says the request itself is wrong, and a 508 (Loop
			// Detected) that the call went round in a loop, which another try would only go round again.
			const passing = (response.status >= 500 && response.status !== 508) || response.status === 429;
			return passing ? { ...failed, retryable: true } : failed;
		}
		return { ok: true, data };
	});
}
