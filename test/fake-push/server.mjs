/**
 * A stand-in for the browsers' push services (FCM, Mozilla's autopush, Apple's), so the tests need no network:
 * Parley's pushes reach it through `PUSH_RELAY_URL` (src/domain/alerts/push.ts), at
 * `/<endpoint host>/<endpoint path>`. It plays both the browser and its push service: it makes subscriptions
 * (a P-256 key pair and an auth secret of its own, as a browser does), and checks what a real service and
 * the browser would of each push:
 *
 * - `Authorization: vapid t=<JWT>, k=<public key>` (RFC 8292): the JWT is ES256, signed by `k`, its `aud` the
 *   endpoint's origin, its `exp` in the future and within 24 hours, its `sub` a `mailto:` or https URL (jose);
 * - `Content-Encoding: aes128gcm` and a `TTL` header (RFC 8030);
 * - the body decrypts with the subscription's keys (RFC 8291, with Mozilla's http_ece).
 *
 * A push that passes is answered 201 and kept, decrypted; one that fails 400 with the reason (kept too).
 *
 * Control endpoints:
 * - `POST /__fake/subscriptions` → the subscription as `PushSubscription.toJSON()` gives it, plus its `id`;
 * - `POST /__fake/subscriptions/<id>/gone`: its pushes are answered 410 from now on (the browser unsubscribed);
 * - `GET /__fake/received/<id>`: what reached it, `[{ ok, reason?, payload?, ttl, urgency, jwt }]`.
 *
 * `startFakePush({ port })` → `{ url, close }`.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import ece from 'http_ece';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

/** The host every fake subscription's endpoint names (never resolved: the relay carries the push here). */
export const FAKE_PUSH_HOST = 'push.fake-service.test';

const b64url = (bytes) => Buffer.from(bytes).toString('base64url');

/** Checks a push as a push service and the browser would; returns the decrypted payload or throws the reason. */
async function check(req, raw, subscription) {
	const auth = req.headers.authorization ?? '';
	const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(auth);
	if (!match) throw new Error(`Authorization is not "vapid t=…, k=…": ${auth}`);
	const [, token, key] = match;
	const point = Buffer.from(key, 'base64url');
	if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
	if (decodeProtectedHeader(token).alg !== 'ES256') throw new Error('the JWT is not ES256');
	const publicKey = await importJWK(
		{ kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) },
		'ES256',
	);
	const { payload: jwt } = await jwtVerify(token, publicKey, { audience: `https://${FAKE_PUSH_HOST}` });
	const now = Math.floor(Date.now() / 1000);
	if (typeof jwt.exp !== 'number' || jwt.exp <= now || jwt.exp > now + 24 * 3600) throw new Error('exp out of range');
	if (typeof jwt.sub !== 'string' || !/^(mailto:|https:\/\/)/.test(jwt.sub)) throw new Error(`bad sub ${jwt.sub}`);
	if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('Content-Encoding is not aes128gcm');
	const ttl = req.headers.ttl;
	if (ttl === undefined || !/^\d+$/.test(ttl)) throw new Error('no TTL header');
	const payload = ece
		.decrypt(raw, { version: 'aes128gcm', privateKey: subscription.ecdh, authSecret: subscription.auth })
		.toString('utf8');
	return { payload, ttl: Number(ttl), urgency: req.headers.urgency ?? null, jwt };
}

export async function startFakePush({ port = 0 } = {}) {
	const subscriptions = new Map();
	const server = createServer(async (req, res) => {
		const chunks = [];
		for await (const chunk of req) chunks.push(chunk);
		const raw = Buffer.concat(chunks);
		const url = new URL(req.url ?? '/', 'http://fake');
		const send = (status, body) => {
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body ?? {}));
		};
		if (req.method === 'POST' && url.pathname === '/__fake/subscriptions') {
			const ecdh = createECDH('prime256v1');
			ecdh.generateKeys();
			const id = randomBytes(9).toString('base64url');
			const auth = randomBytes(16).toString('base64url');
			subscriptions.set(id, { ecdh, auth, gone: false, received: [] });
			return send(201, {
				id,
				endpoint: `https://${FAKE_PUSH_HOST}/push/${id}`,
				expirationTime: null,
				keys: { p256dh: b64url(ecdh.getPublicKey()), auth },
			});
		}
		const gone = /^\/__fake\/subscriptions\/([\w-]+)\/gone$/.exec(url.pathname);
		if (req.method === 'POST' && gone) {
			const subscription = subscriptions.get(gone[1]);
			if (!subscription) return send(404);
			subscription.gone = true;
			return send(200);
		}
		const received = /^\/__fake\/received\/([\w-]+)$/.exec(url.pathname);
		if (req.method === 'GET' && received) return send(200, subscriptions.get(received[1])?.received ?? []);
		const push = new RegExp(`^/${FAKE_PUSH_HOST.replace(/\./g, '\\.')}/push/([\\w-]+)$`).exec(url.pathname);
		if (req.method === 'POST' && push) {
			const subscription = subscriptions.get(push[1]);
			if (!subscription || subscription.gone) return send(subscription ? 410 : 404);
			try {
				subscription.received.push({ ok: true, ...(await check(req, raw, subscription)) });
				return send(201);
			} catch (error) {
				subscription.received.push({ ok: false, reason: String(error?.message ?? error) });
				return send(400, { reason: String(error?.message ?? error) });
			}
		}
		return send(404);
	});
	await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
	const address = server.address();
	// The test runner's process ends without waiting for the fake (vitest.config.ts starts it for the run).
	server.unref();
	return {
		url: `http://127.0.0.1:${address.port}`,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
