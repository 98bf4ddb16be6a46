/**
 * Web Push: an alert for a member with no console open goes to each browser it subscribed, encrypted for that
 * browser (RFC 8291, `aes128gcm`) and signed with the deployment's VAPID key (RFC 8292) by
 * @block65/webcrypto-web-push. The endpoint is an address a browser chose, so the call goes through the
 * outbound guard, as every such address does. A push service answering 404 or 410 says the subscription is
 * gone: it is deleted. Any other failure is logged and dropped: an alert is worth little late, and a retry
 * would alert the others twice.
 *
 * `PUSH_RELAY_URL` (a deployment setting, trusted like `WHATSAPP_GRAPH_URL`): every push goes to
 * `<relay>/<endpoint's host><endpoint's path>` instead, headers and body unchanged: for an egress proxy, or
 * the tests' fake push service (test/fake-push/server.mjs), which stands where the real services would.
 */
import { buildPushPayload } from '@block65/webcrypto-web-push';
import { deploymentSecret } from '../../auth/secrets';
import { vapidKeys } from '../../auth/vapid';
import type { Database } from '../../db/client';
import { guardedFetch } from '../../lib/guarded-fetch';
import type { Alert } from '../../model/alerts';
import { dropPushSubscription, type StoredPushSubscription } from './push-subscriptions';

/** What a push reads of the deployment. */
export type PushEnv = Pick<Env, 'PARLEY_SECRET' | 'HTTPS_ONLY' | 'OUTBOUND_RESOLVER'> & {
	OUTBOUND_LOOPBACK?: string;
	PUSH_RELAY_URL?: string;
	/** The VAPID subject (`mailto:` or an https URL) push services may contact; else the console's origin. */
	VAPID_SUBJECT?: string;
};

/** How long a push service keeps an alert for a browser that is off: an hour, after which it is old news. */
export const PUSH_TTL_SECONDS = 3600;
/** A push service answers within seconds; an alert waits no longer. */
const PUSH_TIMEOUT_MS = 5000;

/** The deployment's VAPID public key (base64url): what a browser subscribes with. */
export async function vapidPublicKey(env: Pick<Env, 'PARLEY_SECRET'>): Promise<string> {
	return (await vapidKeys(deploymentSecret(env))).publicKey;
}

/**
 * The VAPID subject: the deployment's, else the console's https origin; a console served over plain http (on
 * a laptop) has no address a push service would accept, so a placeholder contact stands in.
 */
function subjectOf(env: PushEnv, origin: string): string {
	if (env.VAPID_SUBJECT) return env.VAPID_SUBJECT;
	return origin.startsWith('https://') ? origin : 'mailto:push@localhost.invalid';
}

/** Where the push for `endpoint` is sent: the endpoint itself, or its place under the relay. */
function destination(env: PushEnv, endpoint: string): string {
	if (!env.PUSH_RELAY_URL) return endpoint;
	const url = new URL(endpoint);
	return `${env.PUSH_RELAY_URL.replace(/\/$/, '')}/${url.host}${url.pathname}${url.search}`;
}

/**
 * Sends `alert` to one subscription. Returns what became of it: `sent`, `gone` (deleted), or `failed`.
 */
export async function pushAlert(
	env: PushEnv,
	db: Database,
	subscription: StoredPushSubscription,
	alert: Alert,
): Promise<'sent' | 'gone' | 'failed'> {
	try {
		const keys = await vapidKeys(deploymentSecret(env));
		const request = await buildPushPayload(
			{
				data: { ...alert },
				options: { ttl: PUSH_TTL_SECONDS, urgency: alert.kind === 'new_conversation' ? 'normal' : 'high' },
			},
			{
				endpoint: subscription.endpoint,
				expirationTime: null,
				keys: { p256dh: subscription.p256dh, auth: subscription.auth },
			},
			{ subject: subjectOf(env, subscription.origin), ...keys },
		);
		const url = destination(env, subscription.endpoint);
		const init = { method: 'POST' as const, headers: request.headers, body: request.body };
		// The relay is the deployment's own setting; the endpoint is a browser's, so it goes through the guard.
		let status: number;
		if (env.PUSH_RELAY_URL) {
			const response = await fetch(url, { ...init, signal: AbortSignal.timeout(PUSH_TIMEOUT_MS) });
			await response.body?.cancel();
			status = response.status;
		} else {
			const options = { timeoutMs: PUSH_TIMEOUT_MS, followRedirects: false };
			status = (await guardedFetch(env, { url, ...init }, options)).status;
		}
		if (status === 404 || status === 410) {
			await dropPushSubscription(db, subscription.workspaceId, subscription.id);
			return 'gone';
		}
		if (status >= 200 && status < 300) return 'sent';
		console.warn(JSON.stringify({ message: 'push refused', status, subscription: subscription.id }));
		return 'failed';
	} catch (error) {
		console.warn(JSON.stringify({ message: 'push failed', subscription: subscription.id, error: String(error) }));
		return 'failed';
	}
}
