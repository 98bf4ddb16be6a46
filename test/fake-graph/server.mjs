/**
 * A stand-in for Meta's Graph API (the WhatsApp Cloud API), so tests, `npm run dev` and the bench need no
 * network. One `node:http` server, state in memory. It checks what Meta checks and answers Meta's error
 * body when a request breaks a rule, so Parley's mistakes show as they would against Meta
 * (docs: /work/wt/WHATSAPP-REF.md §10, WHATSAPP-REF in the repository's docs/whatsapp.md).
 *
 * - Every Graph call needs `Authorization: Bearer <token>` (else 401 with Meta's code 190). A token pinned
 *   for a phone number id (`POST /__fake/numbers`) must be that one on the number's paths and its media.
 * - Paths may carry any `/vNN.N` version prefix, or none.
 * - Route modules (ROUTE_MODULES) add the endpoints: media here, messages and templates in their own files.
 *   A module not written yet is skipped. A module exports:
 *   - `routes(fake)` → `[{ method, path: RegExp (matched on the path without its version), numberOf?(match),
 *     handle({ req, res, url, path, match, raw, body, fake }) }]`: Graph endpoints, after the token check
 *     (`numberOf` names the phone number id whose pinned token the call must carry, when the path does not
 *     start with it);
 *   - `controls(fake)` → `[{ method, path: '/__fake/…', handle({ req, res, url, json, fake }) }]`: its own
 *     control endpoints (templates, rate settings), without a token;
 *   - `reset(fake)`: forgets its state (in `fake.state`, which it may extend) on `POST /__fake/reset`.
 *   `fake.send(res, status, body)` answers JSON (or a Buffer), `fake.metaError(code, title, details)` builds
 *   Meta's error body, `fake.url` is the server's own origin.
 *
 * Control endpoints (no token):
 * - `POST /__fake/reset`: forget everything (the dev server and the bench; parallel test files share one
 *   fake, so tests use their own phone number ids and media ids instead).
 * - `GET /__fake/requests?path=<substring>`: the Graph requests received (method, path, query, headers, body).
 * - `POST /__fake/fail {path, method?, count?, status?, code, title?, details?}`: the next `count` calls whose
 *   path (version removed) equals `path` (or starts with it, written `prefix*`) answer that Meta error.
 * - `POST /__fake/numbers {phoneNumberId, accessToken}`: pins the token a number's calls must carry.
 * - `POST /__fake/media {base64?, size?, mimeType, phoneNumberId?, omitFileSize?, ttlMs?}` → `{id}`: a file
 *   `GET /{version}/{id}` describes (Meta's descriptor; `size` pads the bytes with zeros to that length).
 *   Its `url` is on this server, needs the token and expires (5 minutes, as Meta's).
 *
 * `startFakeGraph({ port })` → `{ url, close, state }`.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

/** The route modules, in order. Each is optional until written. */
const ROUTE_MODULES = ['./media.mjs', './messages.mjs', './templates.mjs'];

/** Meta's media URLs stay valid this long (WHATSAPP-REF §5). */
export const MEDIA_URL_TTL_MS = 5 * 60 * 1000;

const VERSION_PREFIX = /^\/v\d{1,3}\.\d{1,2}(?=\/|$)/;

/** Meta's error body (WHATSAPP-REF §4): `message` is `(#code) title`. */
export function metaError(code, title, details, subcode) {
	return {
		error: {
			message: `(#${code}) ${title}`,
			type: 'OAuthException',
			code,
			...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
			...(subcode ? { error_subcode: subcode } : {}),
			fbtrace_id: randomBytes(8).toString('base64url'),
		},
	};
}

function freshState() {
	return {
		requests: [],
		failures: [],
		/** phone number id → the token its calls must carry. */
		tokens: new Map(),
		/** media id → { bytes, mimeType, phoneNumberId, omitFileSize, ttlMs }. */
		media: new Map(),
	};
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function send(res, status, body, headers = {}) {
	if (Buffer.isBuffer(body)) {
		res.writeHead(status, { 'Content-Length': body.length, ...headers });
		res.end(body);
		return;
	}
	const text = JSON.stringify(body);
	res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

function bearer(req) {
	const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
	return match ? match[1] : null;
}

const INVALID_TOKEN = () => metaError(190, 'Invalid OAuth access token - Cannot parse access token');

/** Starts the fake on `port` (0: any free port) of 127.0.0.1. */
export async function startFakeGraph({ port = 0 } = {}) {
	const fake = { state: freshState(), url: '', modules: [], metaError, send, bearer };
	const sign = (id, expires) => createHmac('sha256', 'fake-graph-media').update(`${id}:${expires}`).digest('hex');

	/** Whether the call may go on: a token, and the pinned one where a number's is pinned. */
	fake.authorized = (req, phoneNumberId) => {
		const token = bearer(req);
		if (!token) return false;
		const pinned = phoneNumberId ? fake.state.tokens.get(phoneNumberId) : undefined;
		return pinned === undefined || pinned === token;
	};
	fake.mediaUrl = (id, ttlMs = MEDIA_URL_TTL_MS) => {
		const expires = Date.now() + ttlMs;
		return `${fake.url}/__media/${encodeURIComponent(id)}?expires=${expires}&sig=${sign(id, expires)}`;
	};

	const routes = [];
	const controls = [];
	for (const name of ROUTE_MODULES) {
		let module;
		try {
			module = await import(new URL(name, import.meta.url).href);
		} catch (error) {
			if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(name.slice(2))) continue;
			throw error;
		}
		fake.modules.push(module);
		routes.push(...(module.routes?.(fake) ?? []));
		controls.push(...(module.controls?.(fake) ?? []));
	}
	for (const module of fake.modules) module.reset?.(fake);

	async function control(req, res, url, raw) {
		const json = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {};
		const path = url.pathname;
		if (path === '/__fake/reset' && req.method === 'POST') {
			fake.state = freshState();
			for (const module of fake.modules) module.reset?.(fake);
			return send(res, 200, { ok: true });
		}
		if (path === '/__fake/requests' && req.method === 'GET') {
			const filter = url.searchParams.get('path');
			const method = url.searchParams.get('method');
			return send(res, 200, {
				requests: fake.state.requests.filter(
					(r) => (!filter || r.path.includes(filter)) && (!method || r.method === method),
				),
			});
		}
		if (path === '/__fake/fail' && req.method === 'POST') {
			if (typeof json.path !== 'string' || typeof json.code !== 'number') {
				return send(res, 400, { error: 'path (string) and code (number) are required' });
			}
			fake.state.failures.push({
				path: json.path,
				method: json.method ?? null,
				count: json.count ?? 1,
				status: json.status ?? 400,
				body: metaError(json.code, json.title ?? 'Injected failure', json.details, json.subcode),
			});
			return send(res, 200, { ok: true });
		}
		if (path === '/__fake/numbers' && req.method === 'POST') {
			fake.state.tokens.set(String(json.phoneNumberId), String(json.accessToken));
			return send(res, 200, { ok: true });
		}
		if (path === '/__fake/media' && req.method === 'POST') {
			let bytes = Buffer.from(json.base64 ?? '', 'base64');
			if (typeof json.size === 'number' && json.size > bytes.length) {
				bytes = Buffer.concat([bytes, Buffer.alloc(json.size - bytes.length)]);
			}
			const id = json.id ?? String(BigInt(`0x${randomBytes(7).toString('hex')}`));
			fake.state.media.set(id, {
				bytes,
				mimeType: json.mimeType ?? 'application/octet-stream',
				phoneNumberId: json.phoneNumberId ?? null,
				omitFileSize: json.omitFileSize === true,
				ttlMs: json.ttlMs ?? MEDIA_URL_TTL_MS,
			});
			return send(res, 201, { id });
		}
		const own = controls.find((c) => c.method === req.method && c.path === path);
		if (own) return own.handle({ req, res, url, json, fake });
		return send(res, 404, { error: `no control endpoint ${req.method} ${path}` });
	}

	/** The bytes behind a media URL: the token, an unexpired signed URL. */
	function mediaBytes(req, res, url) {
		const id = decodeURIComponent(url.pathname.slice('/__media/'.length));
		const file = fake.state.media.get(id);
		const expires = Number(url.searchParams.get('expires'));
		if (!file || url.searchParams.get('sig') !== sign(id, expires))
			return send(res, 404, metaError(100, 'Media not found'));
		if (!fake.authorized(req, file.phoneNumberId)) return send(res, 401, INVALID_TOKEN());
		if (Date.now() > expires) return send(res, 404, metaError(100, 'The media URL expired'));
		return send(res, 200, file.bytes, { 'Content-Type': file.mimeType });
	}

	function injected(method, path) {
		const failure = fake.state.failures.find(
			(f) =>
				f.count > 0 &&
				(!f.method || f.method === method) &&
				(f.path.endsWith('*') ? path.startsWith(f.path.slice(0, -1)) : path === f.path),
		);
		if (!failure) return null;
		failure.count--;
		return failure;
	}

	const server = createServer(async (req, res) => {
		try {
			const url = new URL(req.url ?? '/', fake.url);
			const raw = await readBody(req);
			if (url.pathname.startsWith('/__fake/')) return await control(req, res, url, raw);
			if (url.pathname.startsWith('/__media/')) {
				fake.state.requests.push(record(req, url.pathname, url, raw));
				return mediaBytes(req, res, url);
			}
			const path = url.pathname.replace(VERSION_PREFIX, '') || '/';
			fake.state.requests.push(record(req, path, url, raw));
			// Meta refuses a call without a valid token before looking at anything else.
			const firstSegment = path.split('/')[1] ?? '';
			if (!fake.authorized(req, firstSegment)) return send(res, 401, INVALID_TOKEN());
			const failure = injected(req.method, path);
			if (failure) return send(res, failure.status, failure.body);
			for (const route of routes) {
				if (route.method !== req.method) continue;
				const match = route.path.exec(path);
				if (!match) continue;
				if (!fake.authorized(req, route.numberOf?.(match, fake))) {
					return send(res, 401, INVALID_TOKEN());
				}
				let body = null;
				if (raw.length > 0 && (req.headers['content-type'] ?? '').includes('application/json')) {
					try {
						body = JSON.parse(raw.toString('utf8'));
					} catch {
						return send(res, 400, metaError(100, 'Invalid parameter', 'The request body is not JSON.'));
					}
				}
				return await route.handle({ req, res, url, path, match, raw, body, fake });
			}
			return send(
				res,
				400,
				metaError(100, 'Unsupported request', `Unsupported ${req.method} request: ${path} does not exist.`),
			);
		} catch (error) {
			send(res, 500, metaError(1, 'An unknown error occurred', String(error)));
		}
	});

	function record(req, path, url, raw) {
		const text = raw.toString('utf8');
		let body = text;
		try {
			body = text ? JSON.parse(text) : null;
		} catch {
			// Kept as text (a multipart upload, bytes).
		}
		return {
			method: req.method,
			path,
			query: Object.fromEntries(url.searchParams),
			headers: { ...req.headers },
			body,
			bodySha256: createHash('sha256').update(raw).digest('hex'),
			at: Date.now(),
		};
	}

	await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
	const address = server.address();
	fake.url = `http://127.0.0.1:${address.port}`;
	// The test runner's process ends without waiting for the fake.
	server.unref();
	return {
		url: fake.url,
		state: () => fake.state,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

// `node test/fake-graph/server.mjs [port]` runs it alone (scripts/dev.mjs starts it the same way).
if (import.meta.url === `file://${process.argv[1]}`) {
	const started = await startFakeGraph({ port: Number(process.argv[2] ?? 0) });
	process.stdout.write(`fake Graph API on ${started.url}\n`);
	// The server is unref'd for the test runner: alone, a timer keeps the process up until it is stopped.
	setInterval(() => {}, 2 ** 30);
}
