/**
 * Each member's Web Push subscriptions: the browsers it turned push on in (Settings › Notifications). A
 * subscription is the Push API's `PushSubscription` as JSON; it belongs to the member who saved it, in that
 * member's workspace, and only that member lists or deletes it. The endpoint is checked by the outbound guard
 * when it is saved (an https address on a public host), as every address Parley later calls is.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { pushSubscriptions } from '../../db/schema';
import { Invalid, NotFound } from '../../lib/errors';
import { urlRefusal } from '../../lib/guarded-fetch';
import { iso, newId } from '../../lib/ids';
import { callableUrl } from '../../lib/url-schemas';

/** Subscriptions per member: a few browsers and devices; a client adding more is refused. */
export const MAX_PUSH_SUBSCRIPTIONS = 20;

const base64url = (what: string, min: number, max: number) =>
	z
		.string()
		.regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`)
		.min(min)
		.max(max);

export const pushSubscriptionInputSchema = z
	.object({
		endpoint: callableUrl(2048).openapi({
			description:
				'The push service’s address for this browser (`PushSubscription.endpoint`): an https URL on a public host.',
		}),
		expirationTime: z.number().nullable().optional().openapi({ description: 'As the browser gives it; not used.' }),
		keys: z
			.object({
				// An uncompressed P-256 point is 65 bytes (87 characters of base64url); the auth secret 16 (22).
				p256dh: base64url('p256dh', 80, 100).openapi({ description: 'The browser’s P-256 public key (base64url).' }),
				auth: base64url('auth', 20, 30).openapi({ description: 'The browser’s 16-byte auth secret (base64url).' }),
			})
			.openapi({
				description: 'The browser’s keys (`PushSubscription.toJSON().keys`), with which a push is encrypted.',
			}),
	})
	.openapi('PushSubscriptionInput');
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionInputSchema>;

export const pushSubscriptionSchema = z
	.object({
		id: z.string().openapi({ description: 'The subscription’s id.' }),
		endpoint: z.string().openapi({ description: 'The push service’s address for that browser.' }),
		createdAt: z.string().openapi({ description: 'When it was saved (ISO 8601).' }),
	})
	.openapi('PushSubscription');

type Row = typeof pushSubscriptions.$inferSelect;

const view = (row: Row) => ({ id: row.id, endpoint: row.endpoint, createdAt: iso(row.createdAt) });

/** What the guard checks: the deployment's https rule and public hosts (the env's part of it). */
type GuardEnv = Parameters<typeof urlRefusal>[0];

/**
 * Saves the caller's subscription. The same endpoint saved again (the browser subscribed anew, or another
 * member signed in on it) replaces the one before: a browser alerts the member signed in there, once.
 */
export async function savePushSubscription(
	env: GuardEnv,
	db: Database,
	caller: { workspaceId: string; operatorId: string },
	input: PushSubscriptionInput,
	origin: string,
	now = Date.now(),
) {
	const refused = urlRefusal(env, input.endpoint);
	if (refused) throw new Invalid(`endpoint ${refused}`, { field: ['endpoint'] });
	const mine = await listPushSubscriptions(db, caller.workspaceId, caller.operatorId);
	if (mine.length >= MAX_PUSH_SUBSCRIPTIONS && !mine.some((s) => s.endpoint === input.endpoint)) {
		throw new Invalid(`at most ${MAX_PUSH_SUBSCRIPTIONS} push subscriptions per member: delete one first`, {
			field: ['endpoint'],
		});
	}
	const values = {
		operatorId: caller.operatorId,
		p256dh: input.keys.p256dh,
		auth: input.keys.auth,
		origin,
		createdAt: now,
	};
	const [row] = await db
		.insert(pushSubscriptions)
		.values({ id: newId('push', now), workspaceId: caller.workspaceId, endpoint: input.endpoint, ...values })
		.onConflictDoUpdate({ target: [pushSubscriptions.workspaceId, pushSubscriptions.endpoint], set: values })
		.returning();
	if (!row) throw new Error('the subscription was not saved');
	return view(row);
}

/** The member's subscriptions, oldest first. */
export async function listPushSubscriptions(db: Database, workspaceId: string, operatorId: string) {
	const rows = await db
		.select()
		.from(pushSubscriptions)
		.where(and(eq(pushSubscriptions.workspaceId, workspaceId), eq(pushSubscriptions.operatorId, operatorId)))
		.orderBy(pushSubscriptions.createdAt, pushSubscriptions.id);
	return rows.map(view);
}

/** Deletes one of the member's own subscriptions; another's (or another workspace's) is not found. */
export async function deletePushSubscription(db: Database, workspaceId: string, operatorId: string, id: string) {
	const deleted = await db
		.delete(pushSubscriptions)
		.where(
			and(
				eq(pushSubscriptions.workspaceId, workspaceId),
				eq(pushSubscriptions.operatorId, operatorId),
				eq(pushSubscriptions.id, id),
			),
		)
		.returning({ id: pushSubscriptions.id });
	if (deleted.length === 0) throw new NotFound(`No push subscription ${id} of yours.`);
}

/** Every subscription of `operatorIds` (of the workspace), as a push is sent to it. */
export async function subscriptionsOf(db: Database, workspaceId: string, operatorIds: readonly string[]) {
	const found: Row[] = [];
	// D1 binds at most 100 parameters to a statement.
	for (let i = 0; i < operatorIds.length; i += 90) {
		found.push(
			...(await db
				.select()
				.from(pushSubscriptions)
				.where(
					and(
						eq(pushSubscriptions.workspaceId, workspaceId),
						inArray(pushSubscriptions.operatorId, operatorIds.slice(i, i + 90)),
					),
				)),
		);
	}
	return found;
}

/** Drops a subscription the push service says is gone (404 or 410): the browser unsubscribed or expired. */
export async function dropPushSubscription(db: Database, workspaceId: string, id: string): Promise<void> {
	await db
		.delete(pushSubscriptions)
		.where(and(eq(pushSubscriptions.workspaceId, workspaceId), eq(pushSubscriptions.id, id)));
}

export type StoredPushSubscription = Row;
