/**
 * Tiny images for the logo tests, built byte by byte: only their headers matter (the Worker reads the type and
 * the size from them and never decodes the pixels), except `PNG_1X1`, a real image a browser can show.
 */

/** A valid 1x1 PNG. */
export const PNG_1X1 = Uint8Array.from(
	atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
	(c) => c.charCodeAt(0),
);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const be16 = (n: number) => [n >> 8, n & 0xff];
const be32 = (n: number) => [...be16(n >>> 16), ...be16(n & 0xffff)];
const le16 = (n: number) => [n & 0xff, n >> 8];
const le24 = (n: number) => [n & 0xff, (n >> 8) & 0xff, n >> 16];

/** A PNG signature and IHDR chunk stating `width` x `height`, then `padding` zero bytes. */
export function png(width: number, height: number, padding = 0): Uint8Array {
	const ihdr = [...be32(13), ...ascii('IHDR'), ...be32(width), ...be32(height), 8, 6, 0, 0, 0, 0, 0, 0, 0];
	return Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...ihdr, ...new Array(padding).fill(0)]);
}

/** A JPEG: SOI, a JFIF APP0 segment, then a baseline frame header (SOF0) stating the size. */
export function jpeg(width: number, height: number): Uint8Array {
	const app0 = [0xff, 0xe0, ...be16(16), ...ascii('JFIF'), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
	const sof0 = [0xff, 0xc0, ...be16(17), 8, ...be16(height), ...be16(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
	return Uint8Array.from([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9]);
}

/** A GIF89a header stating the size. */
export function gif(width: number, height: number): Uint8Array {
	return Uint8Array.from([...ascii('GIF89a'), ...le16(width), ...le16(height), 0, 0, 0]);
}

/** An extended WebP (VP8X) stating its canvas. */
export function webpExtended(width: number, height: number): Uint8Array {
	const chunk = [...ascii('VP8X'), 10, 0, 0, 0, 0, 0, 0, 0, ...le24(width - 1), ...le24(height - 1)];
	return Uint8Array.from([...ascii('RIFF'), 22, 0, 0, 0, ...ascii('WEBP'), ...chunk]);
}

/** A lossless WebP (VP8L) header. */
export function webpLossless(width: number, height: number): Uint8Array {
	const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
	const header = [0x2f, bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff, (bits >>> 24) & 0xff];
	return Uint8Array.from([...ascii('RIFF'), 13, 0, 0, 0, ...ascii('WEBP'), ...ascii('VP8L'), 5, 0, 0, 0, ...header]);
}

/** A lossy WebP (VP8) key frame header. */
export function webpLossy(width: number, height: number): Uint8Array {
	const frame = [0, 0, 0, 0x9d, 0x01, 0x2a, ...le16(width), ...le16(height)];
	return Uint8Array.from([...ascii('RIFF'), 18, 0, 0, 0, ...ascii('WEBP'), ...ascii('VP8 '), 10, 0, 0, 0, ...frame]);
}

/** An SVG logo with a script in it: what must never be taken. */
export const SVG = new TextEncoder().encode(
	'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><script>alert(document.cookie)</script></svg>',
);
