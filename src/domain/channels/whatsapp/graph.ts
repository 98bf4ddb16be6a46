/**
 * Talking to Meta's Graph API for one connected number: its credentials unsealed (`openNumber`), a call
 * answered with parsed JSON or Meta's error as a `GraphError` (`graphCall`), and a media download
 * (`graphMedia`).
 *
 * Where the calls go: the deployment's Graph URL (`WHATSAPP_GRAPH_URL`, Meta's when absent) is trusted, since
 * whoever deploys chose it, and is called with a plain fetch and a 10 s limit. A connection that names its
 * own `graphUrl` (a staging proxy) was checked against the outbound guard when it was saved and is called
 * through `guardedFetch` every time, so a workspace cannot point Parley at the network it runs in.
 *
 * A media URL Meta hands out gets the bearer token only when it is on the connection's Graph origin or one
 * of Meta's download hosts (https): a descriptor naming any other host would otherwise collect the token.
 */
import { and, eq } from 'drizzle-orm';
import { unseal } from '../../../auth/sealed-secret';
import type { Database } from '../../../db/client';
import { whatsappNumbers } from '../../../db/schema';
import { classifyMetaError } from '../../../engines/whatsapp/errors';
import { NotFound } from '../../../lib/errors';
import {
	FETCH_TIMEOUT_MS,
	guardedFetch,
	MAX_RESPONSE_BYTES,
	OutboundError,
	ResponseTooLarge,
} from '../../../lib/guarded-fetch';
import { DEFAULT_GRAPH_URL } from '../../../model/whatsapp';

/** What the Graph client reads of the deployment: the guard's settings and the trusted Graph URL. */
export type GraphEnv = Pick<Env, 'PARLEY_SECRET' | 'HTTPS_ONLY'> & {
	OUTBOUND_LOOPBACK?: string;
	OUTBOUND_RESOLVER?: string;
	/** The deployment's Graph API base URL (tests and `npm run dev`: the fake); absent means Meta's. */
	WHATSAPP_GRAPH_URL?: string;
};

type NumberRow = typeof whatsappNumbers.$inferSelect;

/** A connected number with its credentials opened, for calls to the Graph API. Never returned or logged. */
export type OpenNumber = Omit<NumberRow, 'accessTokenSealed' | 'appSecretSealed'> & {
	accessToken: string;
	appSecret: string;
};

/** Where a sealed field of a number is sealed for: its workspace, its id and the field's name. */
export function sealContext(workspaceId: string, numberId: string, field: 'accessToken' | 'appSecret'): string {
	return `${workspaceId}:${numberId}:${field}`;
}

/** Opens a row's sealed credentials. */
export async function openRow(env: GraphEnv, row: NumberRow): Promise<OpenNumber> {
	const { accessTokenSealed, appSecretSealed, ...rest } = row;
	const [accessToken, appSecret] = await Promise.all([
		unseal(env, sealContext(row.workspaceId, row.id, 'accessToken'), accessTokenSealed),
		unseal(env, sealContext(row.workspaceId, row.id, 'appSecret'), appSecretSealed),
	]);
	return { ...rest, accessToken, appSecret };
}

/** The workspace's number `numberId` with its credentials opened; NotFound in any other workspace. */
export async function openNumber(
	env: GraphEnv,
	db: Database,
	workspaceId: string,
	numberId: string,
): Promise<OpenNumber> {
	const row = await db
		.select()
		.from(whatsappNumbers)
		.where(and(eq(whatsappNumbers.workspaceId, workspaceId), eq(whatsappNumbers.id, numberId)))
		.get();
	if (!row) throw new NotFound(`WhatsApp number ${numberId} not found.`);
	return openRow(env, row);
}

/** The deployment's trusted Graph API base URL, without a trailing slash. */
export function deploymentGraphUrl(env: GraphEnv): string {
	return (env.WHATSAPP_GRAPH_URL || DEFAULT_GRAPH_URL).replace(/\/+$/, '');
}

/** Where a number's calls go, and whether that base is the deployment's own (trusted) one. */
function baseOf(env: GraphEnv, number: Pick<NumberRow, 'graphUrl'>): { base: string; trusted: boolean } {
	const own = number.graphUrl.replace(/\/+$/, '');
	// Meta's URL stands for the deployment's choice, so tests and staging reach their stand-in with every row.
	if (own === DEFAULT_GRAPH_URL || own === deploymentGraphUrl(env))
		return { base: deploymentGraphUrl(env), trusted: true };
	return { base: own, trusted: false };
}

/** Meta's error, as its error body says it (`{error:{message,type,code,error_subcode,error_data,fbtrace_id}}`). */
export class GraphError extends Error {
	override readonly name = 'GraphError';
	readonly retryable: boolean;
	/** The class's throttle: the number's throughput, or one recipient's pair rate. */
	readonly throttle: 'number' | 'recipient' | undefined;
	readonly maxRetries: number | undefined;
	constructor(
		readonly status: number,
		readonly code: number | null,
		readonly subcode: number | null,
		readonly title: string,
		readonly details: string | null,
	) {
		const verdict = classifyMetaError(code, status);
		super(`${code === null ? `HTTP ${status}` : `(#${code})`} ${title}: ${verdict.meaning}`);
		this.retryable = verdict.retryable;
		this.throttle = verdict.throttle;
		this.maxRetries = verdict.maxRetries;
	}
}

function numberOrNull(value: unknown): number | null {
	return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The GraphError of a non-2xx answer, from Meta's error body when it has one. */
export function graphErrorOf(status: number, text: string): GraphError {
	let error: Record<string, unknown> = {};
	try {
		const parsed: unknown = JSON.parse(text);
		const inner = (parsed as { error?: unknown } | null)?.error;
		if (inner && typeof inner === 'object') error = inner as Record<string, unknown>;
	} catch {
		// Not Meta's body (a proxy's error page): the status alone decides.
	}
	const data = error.error_data as { details?: unknown } | undefined;
	const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`;
	return new GraphError(
		status,
		numberOrNull(error.code),
		numberOrNull(error.error_subcode),
		// Meta writes the message as "(#131047) Re-engagement message": the title is what follows.
		message.replace(/^\(#\d+\)\s*/, '').slice(0, 300),
		typeof data?.details === 'string' ? data.details.slice(0, 1000) : null,
	);
}

interface RawResponse {
	status: number;
	headers: Headers | Record<string, string>;
	bytes: Uint8Array;
}

/** A trusted call: plain fetch, 10 s, the body read up to `maxBytes` (over it, ResponseTooLarge). */
async function trustedFetch(url: string, init: RequestInit, maxBytes: number): Promise<RawResponse> {
	const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
	let response: Response;
	try {
		response = await fetch(url, { ...init, signal });
		const declared = Number(response.headers.get('Content-Length') ?? '0');
		if (declared > maxBytes) {
			await response.body?.cancel();
			throw new ResponseTooLarge(`the response is larger than ${maxBytes} bytes`);
		}
		const reader = response.body?.getReader();
		const chunks: Uint8Array[] = [];
		let size = 0;
		while (reader) {
			const { done, value } = await reader.read();
			if (done) break;
			size += value.byteLength;
			if (size > maxBytes) {
				await reader.cancel();
				throw new ResponseTooLarge(`the response is larger than ${maxBytes} bytes`);
			}
			chunks.push(value);
		}
		const bytes = new Uint8Array(size);
		let at = 0;
		for (const chunk of chunks) {
			bytes.set(chunk, at);
			at += chunk.byteLength;
		}
		return { status: response.status, headers: response.headers, bytes };
	} catch (error) {
		if (error instanceof OutboundError) throw error;
		const reason = signal.aborted ? `no answer within ${FETCH_TIMEOUT_MS / 1000} s` : String(error);
		throw new OutboundError(`the Graph API call failed: ${reason}`, { cause: error, transient: true });
	}
}

type Method = 'GET' | 'POST' | 'DELETE';

/** One request to `url` with the number's token, through the trusted or the guarded path. */
async function send(
	env: GraphEnv,
	trusted: boolean,
	number: Pick<OpenNumber, 'accessToken'>,
	request: { method: Method; url: string; body?: string },
	maxBytes: number,
): Promise<RawResponse> {
	const headers: Record<string, string> = { Authorization: `Bearer ${number.accessToken}` };
	if (request.body !== undefined) headers['Content-Type'] = 'application/json';
	if (trusted) {
		return trustedFetch(
			request.url,
			{ method: request.method, headers, body: request.body, redirect: 'manual' },
			maxBytes,
		);
	}
	const answer = await guardedFetch(env, { ...request, headers }, { maxBytes, followRedirects: false });
	return { status: answer.status, headers: answer.headers, bytes: answer.bytes };
}

export interface GraphRequest {
	method: Method;
	/** After the version: `/{phone_number_id}/messages`, `/{media_id}`. */
	path: string;
	body?: unknown;
	query?: Record<string, string>;
}

/**
 * Calls the number's Graph API (`{base}/{version}{path}`) with its token: the parsed JSON of a 2xx answer;
 * a GraphError for anything else (Meta's code, title and details, and whether a retry may pass); an
 * OutboundError when the call itself failed (no answer, refused by the guard).
 */
export async function graphCall(env: GraphEnv, number: OpenNumber, request: GraphRequest): Promise<unknown> {
	const { base, trusted } = baseOf(env, number);
	const url = new URL(`${base}/${number.graphVersion}${request.path}`);
	for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
	const body = request.body === undefined ? undefined : JSON.stringify(request.body);
	const answer = await send(
		env,
		trusted,
		number,
		{ method: request.method, url: url.toString(), body },
		MAX_RESPONSE_BYTES,
	);
	const text = new TextDecoder().decode(answer.bytes);
	if (answer.status < 200 || answer.status > 299) throw graphErrorOf(answer.status, text);
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new OutboundError('the Graph API answered with something other than JSON', { cause: error });
	}
}

/** Meta's download hosts (WHATSAPP-REF §5): a media URL on one of them may carry the token. */
const META_MEDIA_HOSTS = ['fbsbx.com', 'facebook.com', 'whatsapp.net', 'fbcdn.net'];

/** Whether a media URL may be fetched with the number's token: its Graph origin, or https on a Meta host. */
export function mediaUrlAllowed(env: GraphEnv, number: Pick<NumberRow, 'graphUrl'>, raw: string): boolean {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return false;
	}
	if (url.username || url.password) return false;
	if (url.origin === new URL(baseOf(env, number).base).origin) return true;
	const host = url.hostname.toLowerCase();
	return url.protocol === 'https:' && META_MEDIA_HOSTS.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
}

/** A media file larger than the caller takes (Meta's descriptor or the bytes themselves said so). */
export class MediaTooLarge extends Error {
	override readonly name = 'MediaTooLarge';
	constructor(readonly size: number | null) {
		super(
			size === null
				? 'The media file is larger than allowed.'
				: `The media file (${size} bytes) is larger than allowed.`,
		);
	}
}

export interface GraphMediaFile {
	bytes: Uint8Array;
	mimeType: string;
	/** Meta's SHA-256 of the file, as the descriptor gives it (hex or base64). */
	sha256: string | null;
}

/**
 * Downloads the media `mediaId` of the number: resolves its descriptor (`GET /{version}/{mediaId}`), checks
 * the URL's host (see the module's comment), and reads at most `maxBytes` (MediaTooLarge beyond, before a
 * byte is read when the descriptor's size says so already).
 */
export async function graphMedia(
	env: GraphEnv,
	number: OpenNumber,
	mediaId: string,
	maxBytes: number,
): Promise<GraphMediaFile> {
	const descriptor = (await graphCall(env, number, {
		method: 'GET',
		path: `/${encodeURIComponent(mediaId)}`,
		query: { phone_number_id: number.phoneNumberId },
	})) as { url?: unknown; mime_type?: unknown; sha256?: unknown; file_size?: unknown };
	if (typeof descriptor.url !== 'string') throw new OutboundError('the media descriptor names no URL');
	if (!mediaUrlAllowed(env, number, descriptor.url)) {
		throw new OutboundError(
			`the media URL's host is neither the Graph API's nor Meta's: ${new URL(descriptor.url).host}`,
		);
	}
	// Meta gives the size as a number or a string (WHATSAPP-REF §5).
	const declared = Number(descriptor.file_size);
	if (Number.isFinite(declared) && declared > maxBytes) throw new MediaTooLarge(declared);
	const trusted =
		baseOf(env, number).trusted || new URL(descriptor.url).origin !== new URL(baseOf(env, number).base).origin;
	let answer: RawResponse;
	try {
		answer = await send(env, trusted, number, { method: 'GET', url: descriptor.url }, maxBytes);
	} catch (error) {
		if (error instanceof ResponseTooLarge) throw new MediaTooLarge(null);
		throw error;
	}
	if (answer.status < 200 || answer.status > 299) {
		throw graphErrorOf(answer.status, new TextDecoder().decode(answer.bytes.slice(0, 4096)));
	}
	const header =
		answer.headers instanceof Headers ? answer.headers.get('Content-Type') : (answer.headers['content-type'] ?? null);
	const mimeType =
		typeof descriptor.mime_type === 'string' ? descriptor.mime_type : (header ?? 'application/octet-stream');
	return { bytes: answer.bytes, mimeType, sha256: typeof descriptor.sha256 === 'string' ? descriptor.sha256 : null };
}
