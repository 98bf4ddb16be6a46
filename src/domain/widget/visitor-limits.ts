import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { widgetSettings, workspaces } from '../../db/schema';
import { NotFound, TooManyRequests } from '../../lib/errors';
import { rateLimiter } from '../objects';
import { DEFAULT_WIDGET_SETTINGS, type WidgetSettings } from './settings';

/**
 * Abuse limits on the public widget endpoints, per minute. A visitor chats at human speed; the per-IP limits
 * are higher because an office or a mobile carrier puts many visitors behind one address, and they count
 * per workspace, so one busy address on one site never throttles another site. The vars
 * (WIDGET_MESSAGES_PER_IP, WIDGET_SESSIONS_PER_IP) are the deployment's defaults; a workspace's own
 * `limits` widget setting replaces them for that workspace.
 */
export interface VisitorLimits {
	messagesPerVisitor: number;
	messagesPerIp: number;
	sessionsPerIp: number;
}

/** The limits of one workspace: its own settings where it set them, else the deployment's vars. */
export function visitorLimits(env: Env, own: WidgetSettings['limits'] = { sessionsPerIp: null, messagesPerIp: null }) {
	return {
		messagesPerVisitor: 20,
		messagesPerIp: own.messagesPerIp ?? (Number(env.WIDGET_MESSAGES_PER_IP) || 120),
		sessionsPerIp: own.sessionsPerIp ?? (Number(env.WIDGET_SESSIONS_PER_IP) || 30),
	} satisfies VisitorLimits;
}

// Each isolate keeps a workspace's limits and closed-conversation choice for a minute: a socket message or a
// session start then costs no D1 read to learn them, and a changed setting applies within a minute everywhere
// (at once where it was saved).
const CACHE_MS = 60_000;
type Policy = Pick<WidgetSettings, 'limits' | 'closedConversationReply'>;
const cached = new Map<string, { policy: Policy; at: number }>();

const MAX_CACHED = 10_000;

/**
 * A workspace's widget policy (its `limits` and `closedConversationReply` settings), from this isolate's
 * cache or D1 (one statement, which also proves the workspace exists). An unknown workspace is a NotFound
 * before anything is counted, so made-up ids in widget paths leave no limiter objects behind and never fill
 * this cache.
 */
async function workspacePolicy(db: Database, workspaceId: string, now: number): Promise<Policy> {
	const hit = cached.get(workspaceId);
	if (hit && now - hit.at < CACHE_MS) return hit.policy;
	const row = await db
		.select({ settings: widgetSettings.settings })
		.from(workspaces)
		.leftJoin(widgetSettings, eq(widgetSettings.workspaceId, workspaces.id))
		.where(eq(workspaces.id, workspaceId))
		.get();
	if (!row) throw new NotFound(`Workspace ${workspaceId} not found.`);
	const settings = row.settings as Partial<WidgetSettings> | null;
	const policy = {
		limits: settings?.limits ?? DEFAULT_WIDGET_SETTINGS.limits,
		closedConversationReply: settings?.closedConversationReply ?? DEFAULT_WIDGET_SETTINGS.closedConversationReply,
	};
	cached.delete(workspaceId);
	// The oldest entry goes first (a Map keeps insertion order): a burst of workspaces never empties it all.
	if (cached.size >= MAX_CACHED) cached.delete(cached.keys().next().value ?? '');
	cached.set(workspaceId, { policy, at: now });
	return policy;
}

/** A workspace's visitor limits (see `workspacePolicy`). */
export async function workspaceLimits(db: Database, env: Env, workspaceId: string, now = Date.now()) {
	return visitorLimits(env, (await workspacePolicy(db, workspaceId, now)).limits);
}

/** What a visitor's message on a closed conversation does in the workspace (see `workspacePolicy`). */
export async function closedConversationReply(db: Database, workspaceId: string, now = Date.now()) {
	return (await workspacePolicy(db, workspaceId, now)).closedConversationReply;
}

/** Forgets a workspace's cached policy (its settings were just saved in this isolate). */
export function forgetWorkspaceLimits(workspaceId: string): void {
	cached.delete(workspaceId);
}

/**
 * The client address Cloudflare reports, as a limit bucket: IPv6 by its /64 (one subscriber holds a whole
 * /64, so per-address buckets would give it 2^64 budgets). Locally (no header) every request shares one.
 */
export function clientIp(headers: Headers): string {
	const ip = headers.get('CF-Connecting-IP');
	if (!ip) return 'local';
	if (!ip.includes(':')) return ip;
	const groups = expandIpv6(ip);
	return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded), or null when it is not one. */
function expandIpv6(ip: string): string[] | null {
	const [head = '', tail, extra] = ip.split('::');
	if (extra !== undefined) return null;
	const left = head ? head.split(':') : [];
	const right = tail ? tail.split(':') : [];
	const missing = 8 - left.length - right.length;
	if (tail === undefined ? missing !== 0 : missing < 1) return null;
	return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((g) => g.toLowerCase());
}

/**
 * The flood limit of every public widget request (config reads with a higher one), per workspace and address:
 * the Workers rate-limiting binding counts in the serving location with no Durable Object hop, so the
 * config read each page view makes stays a KV read. It has no reset time; a minute is the honest wait.
 */
export async function enforceFloodLimit(
	env: Env,
	workspaceId: string,
	ip: string,
	request: 'config' | 'other',
): Promise<void> {
	if (env.WIDGET_FLOOD_LIMIT === 'off') return;
	// The config read has a budget of its own, ten times higher: it is what each page view of the site costs.
	const binding = request === 'config' ? env.WIDGET_CONFIG_FLOOD : env.WIDGET_FLOOD;
	const { success } = await binding.limit({ key: `${workspaceId}:${ip}` });
	if (!success) throw new TooManyRequests('Too many requests from this address; try again in 60 s.', 60);
}

/**
 * Counts one hit against each named bucket and throws TooManyRequests (with the seconds to wait) when any is
 * over its limit. Buckets live in the same RateLimiter Durable Object class as the API's token limits: exact
 * counts across locations, for the writes (session starts, messages).
 */
export async function enforceLimits(env: Env, buckets: Array<{ key: string; limit: number }>): Promise<void> {
	const decisions = await Promise.all(
		buckets.map(({ key, limit }) => rateLimiter(env, `widget:${key}`).hit(limit, 60)),
	);
	const refused = decisions.find((d) => !d.allowed);
	if (refused) {
		throw new TooManyRequests(
			`Too many requests from this visitor; try again in ${refused.resetSeconds} s.`,
			refused.resetSeconds,
		);
	}
}

/** Who sends a visitor message: the visitor and its address, in its workspace. */
export interface VisitorSender {
	workspaceId: string;
	visitorId: string;
	ip: string;
}

/** The buckets a visitor message counts against: the visitor's, and its address's in the workspace. */
export function messageBuckets(
	sender: VisitorSender,
	limits: Pick<VisitorLimits, 'messagesPerVisitor' | 'messagesPerIp'>,
) {
	return [
		{ key: `visitor:${sender.visitorId}`, limit: limits.messagesPerVisitor },
		{ key: `ws:${sender.workspaceId}:ip-messages:${sender.ip}`, limit: limits.messagesPerIp },
	];
}

/** Counts a visitor message against the visitor's and its address's budgets in the workspace. */
export async function spendVisitorMessage(db: Database, env: Env, sender: VisitorSender): Promise<void> {
	await enforceLimits(env, messageBuckets(sender, await workspaceLimits(db, env, sender.workspaceId)));
}

/** Counts a session start (or another anonymous write, such as a handoff) against the address's budget. */
export async function spendSessionStart(db: Database, env: Env, workspaceId: string, ip: string): Promise<void> {
	const limits = await workspaceLimits(db, env, workspaceId);
	await enforceLimits(env, [{ key: `ws:${workspaceId}:ip-sessions:${ip}`, limit: limits.sessionsPerIp }]);
}
