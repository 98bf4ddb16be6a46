/**
 * An image's size in pixels, read from its header without decoding it (the Worker has no image decoder, and a
 * decoder is what a decompression bomb attacks). Each format keeps its size in a fixed place, except JPEG,
 * whose frame header comes after any number of segments.
 */

export interface ImageSize {
	width: number;
	height: number;
}

const be16 = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const le16 = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const le24 = (b: Uint8Array, at: number) => le16(b, at) | ((b[at + 2] ?? 0) << 16);
const be32 = (b: Uint8Array, at: number) => be16(b, at) * 65_536 + be16(b, at + 2);
const ascii = (b: Uint8Array, at: number, text: string) =>
	[...text].every((char, i) => b[at + i] === char.charCodeAt(0));

/** The size of a PNG, JPEG, WebP or GIF (`type` as sniffed); null when the header is cut short or damaged. */
export function imageSize(bytes: Uint8Array, type: string): ImageSize | null {
	const size = READERS[type]?.(bytes) ?? null;
	return size && size.width > 0 && size.height > 0 ? size : null;
}

const READERS: Record<string, (b: Uint8Array) => ImageSize | null> = {
	// The IHDR chunk always comes first: its length and name, then width and height (big-endian).
	'image/png': (b) => (b.length >= 24 && ascii(b, 12, 'IHDR') ? { width: be32(b, 16), height: be32(b, 20) } : null),
	// The logical screen descriptor, right after the signature.
	'image/gif': (b) => (b.length >= 10 ? { width: le16(b, 6), height: le16(b, 8) } : null),
	'image/jpeg': jpegSize,
	'image/webp': webpSize,
};

/** Start-of-frame markers (SOF0 to SOF15): all but DHT (C4), JPG (C8) and DAC (CC), which share the range. */
const isStartOfFrame = (marker: number) =>
	marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** Walks the segments after SOI to the first frame header: precision, then height and width (big-endian). */
function jpegSize(b: Uint8Array): ImageSize | null {
	let at = 2;
	while (at + 9 < b.length) {
		if (b[at] !== 0xff) return null;
		const marker = b[at + 1] ?? 0;
		// Fill bytes before a marker, and markers without a length (RST, TEM).
		if (marker === 0xff) {
			at++;
			continue;
		}
		if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
			at += 2;
			continue;
		}
		if (isStartOfFrame(marker)) return { width: be16(b, at + 7), height: be16(b, at + 5) };
		// Scan data before any frame header, or the end: a damaged file.
		if (marker === 0xda || marker === 0xd9) return null;
		at += 2 + be16(b, at + 2);
	}
	return null;
}

/** The three WebP kinds: lossy (VP8), lossless (VP8L) and extended (VP8X, which states the canvas). */
function webpSize(b: Uint8Array): ImageSize | null {
	if (ascii(b, 12, 'VP8X') && b.length >= 30) return { width: le24(b, 24) + 1, height: le24(b, 27) + 1 };
	if (ascii(b, 12, 'VP8L') && b.length >= 25 && b[20] === 0x2f) {
		// 14 bits each, minus one, packed little-endian after the signature byte 0x2f.
		const bits = (b[21] ?? 0) | ((b[22] ?? 0) << 8) | ((b[23] ?? 0) << 16) | ((b[24] ?? 0) << 24);
		return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
	}
	// A key frame's start code 9d 01 2a, then 14-bit width and height (the top two bits are scaling).
	if (ascii(b, 12, 'VP8 ') && b.length >= 30 && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
		return { width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff };
	}
	return null;
}
