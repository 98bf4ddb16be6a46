/**
 * The widget's logo, uploaded as an image (Settings > Widget > Appearance) and kept in R2 under its workspace
 * and the SHA-256 of its bytes: `logos/{workspaceId}/{sha256}.{ext}`. The Worker serves it, without a token,
 * at `/widget/{workspaceId}/logo/{sha256}.{ext}`, and that path is what `logoUrl` holds (see
 * UPLOADED_LOGO_PATH in widget-settings.ts). A name that is the content's hash never changes meaning, so
 * browsers may keep it for a year.
 *
 * What an upload is comes from its first bytes, never from the Content-Type alone: PNG, JPEG, WebP and GIF,
 * and never SVG (a document that can carry script). The declared type must agree with the bytes.
 */
import { sha256Hex } from '../../auth/token';
import type { Database } from '../../db/client';
import { Invalid, NotFound, PayloadTooLarge, UnsupportedMediaType } from '../../lib/errors';
import { imageSize } from '../../lib/image-size';
import { sniff } from '../conversations/files';
import { saveWidgetSettings } from './config';
import { loadWidgetSettings, UPLOADED_LOGO_PATH } from './settings';

export const MAX_LOGO_BYTES = 512 * 1024;
/** A logo shows at 40 px; 2048 leaves room for any screen's density and refuses a decompression bomb. */
export const MAX_LOGO_SIDE = 2048;
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
const ACCEPTED = 'a PNG, JPEG, WebP or GIF image (not SVG)';
/**
 * A logo replaced less than this long ago is never removed: an upload whose settings write has not landed
 * yet (a concurrent one) must not lose its object to another upload's clean-up.
 */
const IN_FLIGHT_MS = 10 * 60_000;

const prefix = (workspaceId: string) => `logos/${workspaceId}/`;

/** The path the Worker serves a logo at, which `logoUrl` stores. */
function logoPath(workspaceId: string, file: string): string {
	return `/widget/${workspaceId}/logo/${file}`;
}

/** The R2 key an own logo path names, or null for anything else (an https URL, another workspace's path). */
function keyOfPath(workspaceId: string, url: string | null): string | null {
	const match = url === null ? null : UPLOADED_LOGO_PATH.exec(url);
	return match?.[1] === workspaceId ? `${prefix(workspaceId)}${url?.split('/').pop()}` : null;
}

/**
 * Checks an upload and says what it is: its type from its bytes (which must match `declaredType`), its
 * extension and its size in pixels. Throws PayloadTooLarge, UnsupportedMediaType or Invalid; stores nothing.
 */
export function checkLogo(bytes: Uint8Array, declaredType: string | undefined) {
	if (bytes.byteLength > MAX_LOGO_BYTES)
		throw new PayloadTooLarge(`A logo may be at most ${MAX_LOGO_BYTES / 1024} KiB.`);
	const declared = (declaredType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
	if (!(LOGO_TYPES as readonly string[]).includes(declared)) {
		throw new UnsupportedMediaType(`Send ${ACCEPTED} with its Content-Type; "${declared || 'none'}" is not one.`);
	}
	const kind = sniff(bytes);
	if (!kind || !(LOGO_TYPES as readonly string[]).includes(kind.type)) {
		throw new UnsupportedMediaType(`The body is not ${ACCEPTED}, whatever its Content-Type says.`);
	}
	if (kind.type !== declared) {
		throw new UnsupportedMediaType(`The body is ${kind.type}, but its Content-Type says ${declared}.`);
	}
	const size = imageSize(bytes, kind.type);
	if (!size) throw new Invalid(`The image is a damaged ${kind.type}: its header gives no size.`);
	if (size.width > MAX_LOGO_SIDE || size.height > MAX_LOGO_SIDE) {
		throw new Invalid(
			`The image is ${size.width}x${size.height} px; a logo may be at most ${MAX_LOGO_SIDE}x${MAX_LOGO_SIDE} (200x200 recommended).`,
		);
	}
	return { contentType: kind.type, extension: kind.extension, ...size };
}

/**
 * Stores an uploaded logo and makes it the widget's: the object first, then `logoUrl` through the one settings
 * write path (the public config rewritten), then the clean-up of older logos. Uploading the current logo again
 * changes nothing. Returns the settings and their version.
 */
export async function uploadLogo(
	db: Database,
	env: Env,
	workspaceId: string,
	bytes: Uint8Array,
	declaredType: string | undefined,
) {
	const logo = checkLogo(bytes, declaredType);
	// The name is the content's lower-case hex SHA-256.
	const file = `${await sha256Hex(bytes)}.${logo.extension}`;
	const url = logoPath(workspaceId, file);
	const current = await loadWidgetSettings(db, workspaceId);
	if (current.settings.logoUrl === url) return current;
	await env.FILES.put(`${prefix(workspaceId)}${file}`, bytes, {
		httpMetadata: { contentType: logo.contentType },
		customMetadata: { width: String(logo.width), height: String(logo.height) },
	});
	const saved = await saveWidgetSettings(db, env, workspaceId, { logoUrl: url });
	await pruneLogos(env.FILES, workspaceId, [url, current.settings.logoUrl]);
	return saved;
}

/** Takes the logo off the widget (an uploaded one or an https URL). Returns the settings and their version. */
export async function removeLogo(db: Database, env: Env, workspaceId: string) {
	const current = await loadWidgetSettings(db, workspaceId);
	if (current.settings.logoUrl === null) return current;
	const saved = await saveWidgetSettings(db, env, workspaceId, { logoUrl: null });
	await pruneLogos(env.FILES, workspaceId, [current.settings.logoUrl]);
	return saved;
}

/**
 * Removes the workspace's logo objects but the ones `keep` names: the current logo and the one it just
 * replaced, which configs cached before the change (KV for up to a minute, a returning visitor's stored copy
 * until it revalidates) still show for a while. So a logo lives on until the next change after its own.
 */
async function pruneLogos(bucket: R2Bucket, workspaceId: string, keep: Array<string | null>) {
	const kept = new Set(keep.map((url) => keyOfPath(workspaceId, url)));
	const listed = await bucket.list({ prefix: prefix(workspaceId) });
	const stale = listed.objects
		.filter((object) => !kept.has(object.key) && Date.now() - object.uploaded.getTime() > IN_FLIGHT_MS)
		.map((object) => object.key);
	// The change is saved: a failed clean-up only leaves an object for the next one to remove.
	if (stale.length > 0) await bucket.delete(stale).catch((error) => console.error('logo clean-up failed', error));
}

/** A logo as the widget loads it: public, cached for a year (its name is its content), never run as a page. */
export async function logoResponse(env: Env, workspaceId: string, file: string): Promise<Response> {
	const object = /^[0-9a-f]{64}\.(?:png|jpg|webp|gif)$/.test(file)
		? await env.FILES.get(`${prefix(workspaceId)}${file}`)
		: null;
	if (!object) throw new NotFound(`Logo ${file} not found.`);
	return new Response(object.body, {
		headers: {
			'Content-Type': object.httpMetadata?.contentType ?? 'application/octet-stream',
			'Content-Length': String(object.size),
			ETag: object.httpEtag,
			'Cache-Control': 'public, max-age=31536000, immutable',
			'X-Content-Type-Options': 'nosniff',
			'Content-Security-Policy': "default-src 'none'; sandbox",
			// Customer sites embed it; one that isolates itself (COEP) may still load it.
			'Cross-Origin-Resource-Policy': 'cross-origin',
		},
	});
}
