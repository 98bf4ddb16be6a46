import { describe, expect, it } from 'vitest';
import { imageSize } from '../../src/lib/image-size';
import { gif, jpeg, PNG_1X1, png, webpExtended, webpLossless, webpLossy } from '../images';

describe('imageSize', () => {
	const cases: Array<[string, Uint8Array, string, { width: number; height: number } | null]> = [
		['a real 1x1 PNG', PNG_1X1, 'image/png', { width: 1, height: 1 }],
		['a 200x200 PNG', png(200, 200), 'image/png', { width: 200, height: 200 }],
		['a PNG beyond 16 bits', png(70_000, 3), 'image/png', { width: 70_000, height: 3 }],
		['a JPEG after an APP0 segment', jpeg(640, 480), 'image/jpeg', { width: 640, height: 480 }],
		['a GIF', gif(300, 120), 'image/gif', { width: 300, height: 120 }],
		['an extended WebP', webpExtended(4000, 1), 'image/webp', { width: 4000, height: 1 }],
		['a lossless WebP', webpLossless(200, 150), 'image/webp', { width: 200, height: 150 }],
		['a lossy WebP', webpLossy(320, 240), 'image/webp', { width: 320, height: 240 }],
		['a PNG cut inside its header', png(200, 200).slice(0, 20), 'image/png', null],
		['a PNG of width 0', png(0, 200), 'image/png', null],
		['a JPEG without a frame header', jpeg(10, 10).slice(0, 22), 'image/jpeg', null],
		[
			'a JPEG whose segments do not start with 0xff',
			Uint8Array.from([0xff, 0xd8, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]),
			'image/jpeg',
			null,
		],
		['a type it does not read', PNG_1X1, 'image/svg+xml', null],
	];
	for (const [name, bytes, type, expected] of cases) {
		it(`reads ${name}: ${expected ? `${expected.width}x${expected.height}` : 'null'}`, () => {
			expect(imageSize(bytes, type)).toEqual(expected);
		});
	}
});
