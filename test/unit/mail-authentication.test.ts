import { describe, expect, it } from 'vitest';
import {
	isPossiblyForged,
	mailAuthentication,
	parseAuthenticationResults,
} from '../../src/engines/mail/authentication';
import type { MailAuthentication } from '../../src/model/email';

describe('parseAuthenticationResults', () => {
	const cases: [string, string, MailAuthentication][] = [
		[
			'Gmail-style, every method passing',
			'mx.google.com; dkim=pass header.i=@acme.example header.s=s1 header.b=Ab12; spf=pass (google.com: domain of a@acme.example designates 1.2.3.4 as permitted sender) smtp.mailfrom=a@acme.example; dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=acme.example',
			{ dkim: 'pass', spf: 'pass', dmarc: 'pass' },
		],
		[
			'a spoof: SPF softfail, no signature, DMARC fail',
			'mx.cloudflare.net; dkim=none; spf=softfail smtp.mailfrom=ceo@bank.example; dmarc=fail header.from=bank.example',
			{ dkim: 'none', spf: 'softfail', dmarc: 'fail' },
		],
		['a version and no results', 'mx.example 1; none', {}],
		[
			'two DKIM signatures: one pass wins',
			'mx.example; dkim=fail header.d=old.example; dkim=pass header.d=acme.example',
			{ dkim: 'pass' },
		],
		['a semicolon inside a comment is not a separator', 'mx.example; spf=pass (a; b) smtp.mailfrom=x', { spf: 'pass' }],
		['older spellings', 'mx.example; spf=hardfail; dkim=permerr', { spf: 'fail', dkim: 'permerror' }],
		['methods other than the three are ignored', 'mx.example; arc=pass; bimi=pass; spf=neutral', { spf: 'neutral' }],
		['upper case', 'MX.EXAMPLE; SPF=PASS; DMARC=FAIL', { spf: 'pass', dmarc: 'fail' }],
	];
	it.each(cases)('%s', (_name, value, expected) => {
		expect(parseAuthenticationResults(value)).toEqual(expected);
	});
});

describe('mailAuthentication', () => {
	it('trusts only the top-most header: one the sender wrote below it is ignored', () => {
		const headers = [
			{ key: 'authentication-results', value: 'mx.cloudflare.net; spf=fail; dmarc=fail' },
			{ key: 'authentication-results', value: 'forged.example; spf=pass; dkim=pass; dmarc=pass' },
		];
		expect(mailAuthentication(headers)).toEqual({ spf: 'fail', dmarc: 'fail' });
	});
	it('reads ARC-Authentication-Results when there is no Authentication-Results', () => {
		const headers = [{ key: 'arc-authentication-results', value: 'i=1; mx.cloudflare.net; dkim=pass; spf=pass' }];
		expect(mailAuthentication(headers)).toEqual({ dkim: 'pass', spf: 'pass' });
	});
	it('is null without either', () => {
		expect(mailAuthentication([{ key: 'subject', value: 'x' }])).toBeNull();
	});
});

describe('isPossiblyForged', () => {
	const cases: [string, MailAuthentication | null, boolean][] = [
		['not reported', null, false],
		['nothing in the header', {}, false],
		['DMARC fail', { spf: 'pass', dkim: 'pass', dmarc: 'fail' }, true],
		['DMARC permerror', { dmarc: 'permerror' }, true],
		['DMARC pass decides over a failing SPF (a forwarded mail)', { spf: 'fail', dkim: 'pass', dmarc: 'pass' }, false],
		['DMARC none (no policy published): SPF and DKIM decide', { spf: 'fail', dmarc: 'none' }, true],
		['DMARC none with DKIM pass', { spf: 'fail', dkim: 'pass', dmarc: 'none' }, false],
		['no DMARC, SPF softfail and no signature', { spf: 'softfail', dkim: 'none' }, true],
		['no DMARC, DKIM fail', { dkim: 'fail' }, true],
		['no DMARC, SPF fail but DKIM pass', { spf: 'fail', dkim: 'pass' }, false],
		['no DMARC, SPF neutral', { spf: 'neutral' }, false],
		['no DMARC, temporary errors only', { spf: 'temperror', dkim: 'temperror' }, false],
	];
	it.each(cases)('%s', (_name, authentication, forged) => {
		expect(isPossiblyForged(authentication)).toBe(forged);
	});
});
