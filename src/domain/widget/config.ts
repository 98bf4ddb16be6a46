/**
 * The public copy of a workspace's widget settings, which the widget loads on every page view: kept in KV
 * (`widget-config:<workspaceId>`), rewritten by every settings write, rebuilt from D1 on a miss. Every writer
 * of the settings (PUT /v3/widget/settings, the logo upload and removal) goes through `saveWidgetSettings`, so
 * none can forget the copy or the isolate's cached limits.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { workspaces } from '../../db/schema';
import { ServiceUnavailable } from '../../lib/errors';
import type { ExpectedVersion } from '../../lib/expected-version';
import { loadWidgetSettings, updateWidgetSettings, type WidgetSettings, type WidgetSettingsUpdate } from './settings';
import { forgetWorkspaceLimits } from './visitor-limits';

/**
 * Saves a partial update of the settings (see `updateWidgetSettings`: validated whole, compare-and-set), then
 * rewrites the public copy before returning, so the widget sees the change at its next revalidation.
 */
export async function saveWidgetSettings(
	db: Database,
	env: Env,
	workspaceId: string,
	update: WidgetSettingsUpdate,
	expected?: ExpectedVersion,
) {
	const saved = await updateWidgetSettings(db, workspaceId, update, expected);
	forgetWorkspaceLimits(workspaceId);
	// D1 stays the source of truth; the public copy the widget reads is rewritten before we answer.
	try {
		const config = publicWidgetConfig(workspaceId, saved.settings, saved.updatedAt);
		await publishPublicConfig(db, env.WIDGET_CONFIG, workspaceId, JSON.stringify(config));
	} catch (error) {
		throw new ServiceUnavailable(
			'The settings were saved but the widget cannot see them yet; repeat the same request.',
			{ cause: error },
		);
	}
	return saved;
}

/** KV key of a workspace's public widget config (what the widget fetches). */
export function publicConfigKey(workspaceId: string): string {
	return `widget-config:${workspaceId}`;
}

/**
 * What a visitor's browser may see: the settings but the abuse limits (no help to a flood), stamped with the
 * workspace and version.
 */
export function publicWidgetConfig(workspaceId: string, settings: WidgetSettings, updatedAt: number) {
	const { limits: _limits, ...visible } = settings;
	return { workspaceId, version: updatedAt, ...visible };
}

/**
 * The public config as the widget fetches it: from KV (the edge copy every settings change rewrites), or on
 * a miss (a workspace that never saved settings) built from D1 and written back. Null for no workspace.
 */
export async function readPublicConfig(
	db: Database,
	kv: KVNamespace,
	workspaceId: string,
): Promise<{ json: string; version: number } | null> {
	const cached = await kv.get(publicConfigKey(workspaceId));
	if (cached !== null) return { json: cached, version: versionOf(cached) };
	if (!(await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).get()))
		return null;
	const { settings, updatedAt } = await loadWidgetSettings(db, workspaceId);
	// Version 0: the defaults, until the first save.
	const json = JSON.stringify(publicWidgetConfig(workspaceId, settings, updatedAt ?? 0));
	// The copy is only a cache: a refused write (KV allows about one write a second per key) must not fail
	// the read that D1 has just answered. The next miss tries again.
	await publishPublicConfig(db, kv, workspaceId, json).catch((error: unknown) => {
		console.error({ level: 'error', msg: 'public widget config not cached', workspaceId, error: String(error) });
	});
	return { json, version: updatedAt ?? 0 };
}

/**
 * Writes a public config to KV without ever leaving an older one there. KV has no compare-and-set, so: no
 * write over a copy of the same or a newer version; and after the write, D1 is read again: a save that
 * committed meanwhile (whose own KV write may have landed before ours) is written over ours. A save that
 * commits after that second read writes its copy after ours, so it wins either way.
 */
export async function publishPublicConfig(db: Database, kv: KVNamespace, workspaceId: string, json: string) {
	const key = publicConfigKey(workspaceId);
	const version = versionOf(json);
	const present = await kv.get(key);
	if (present !== null && versionOf(present) >= version) return;
	await kv.put(key, json);
	const latest = await loadWidgetSettings(db, workspaceId);
	if ((latest.updatedAt ?? 0) > version) {
		await kv.put(key, JSON.stringify(publicWidgetConfig(workspaceId, latest.settings, latest.updatedAt ?? 0)));
	}
}

function versionOf(json: string): number {
	return (JSON.parse(json) as { version: number }).version;
}
