import { describe, expect, it } from 'vitest';
import { clientIp } from '../../src/domain/widget/visitor-limits';

describe('clientIp (the per-IP limit bucket)', () => {
	it.each([
		['203.0.113.7', '203.0.113.7'],
		['2001:db8:85a3:1:aaaa:bbbb:cccc:dddd', '2001:db8:85a3:1::/64'],
		['2001:db8:85a3:1::1', '2001:db8:85a3:1::/64'],
		['2001:DB8::1', '2001:db8:0:0::/64'],
		['::1', '0:0:0:0::/64'],
		['not::an::ip', 'not::an::ip'],
	])('puts %s in bucket %s', (ip, bucket) => {
		expect(clientIp(new Headers({ 'CF-Connecting-IP': ip }))).toBe(bucket);
	});

	it('shares one local bucket when Cloudflare sent no address', () => {
		expect(clientIp(new Headers())).toBe('local');
	});
});
