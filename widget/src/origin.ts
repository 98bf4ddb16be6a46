/**
 * Campaign origin: the click identifiers (gclid, fbclid) and utm_* parameters of the landing URL. Kept in
 * localStorage for 30 days (a later landing with campaign parameters replaces it), so it survives the
 * navigations between landing and the first message, and is sent with the session and the conversation.
 */
import type { Origin } from './api-types';
import { load, save } from './storage';

const KEEP_MS = 30 * 24 * 60 * 60 * 1000;

const PARAMETERS: [string, keyof Origin, number][] = [
	['utm_source', 'utmSource', 255],
	['utm_medium', 'utmMedium', 255],
	['utm_campaign', 'utmCampaign', 255],
	['utm_content', 'utmContent', 255],
	['utm_term', 'utmTerm', 255],
	['gclid', 'gclid', 512],
	['fbclid', 'fbclid', 512],
];

/** A URL the server accepts (http or https, at most 2048 characters), else undefined. */
function url(value: string): string | undefined {
	try {
		const parsed = new URL(value);
		if (!/^https?:$/.test(parsed.protocol)) return undefined;
		return value.length <= 2048 ? value : `${parsed.origin}${parsed.pathname}`.slice(0, 2048);
	} catch {
		return undefined;
	}
}

/** Reads the campaign parameters of `location` (trimmed and cut to what the server accepts). */
export function originOf(location: Location, referrer: string): Origin | undefined {
	const query = new URLSearchParams(location.search);
	const origin: Origin = {};
	for (const [parameter, field, max] of PARAMETERS) {
		const value = query.get(parameter)?.trim().slice(0, max);
		if (value) origin[field] = value;
	}
	if (Object.keys(origin).length === 0) return undefined;
	origin.landingUrl = url(location.href);
	const from = url(referrer);
	if (from) origin.referrer = from;
	return origin;
}

/** Records this landing's campaign (if any) and returns the one in force for `workspaceId`. */
export function captureOrigin(workspaceId: string, location: Location, referrer: string, now: number) {
	const key = `origin:${workspaceId}`;
	const landed = originOf(location, referrer);
	if (landed) save(key, { origin: landed, at: now });
	const kept = load<{ origin: Origin; at: number }>(key);
	if (kept && now - kept.at > KEEP_MS) {
		save(key, undefined);
		return undefined;
	}
	return kept?.origin;
}
