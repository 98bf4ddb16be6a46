/**
 * The SPF, DKIM and DMARC verdicts a receiving server wrote into `Authentication-Results` (RFC 8601), and
 * Parley's rule for calling a mail possibly forged.
 *
 * Which header counts: only the top-most. Each server a mail passes adds its own above the others, so the
 * top-most is the one Cloudflare's inbound servers wrote; any below it travelled with the mail and may have
 * been written by the sender itself. Without one, the top-most `ARC-Authentication-Results` (RFC 8617, which
 * Email Routing adds as an intermediary) is read the same way.
 *
 * Possibly forged: DMARC already weighs SPF and DKIM against the From domain, so when it passes or fails it
 * decides alone (`fail` or `permerror` is forged; a forwarded mail whose SPF fails but whose DKIM aligns
 * passes DMARC and is not flagged). Without such a verdict (none reported, or `none`: the domain publishes no
 * policy), a mail is flagged when neither SPF nor DKIM passed and at least one of them failed outright
 * (`fail`, `softfail`, `permerror`). No header at all flags nothing: the console shows
 * the verdicts as not reported rather than crying wolf on every locally injected test mail.
 */
import type { AuthVerdict, MailAuthentication } from '../../model/email';
import { headerValue, type MailHeader } from './headers';

const VERDICTS: readonly AuthVerdict[] = [
	'pass',
	'fail',
	'softfail',
	'neutral',
	'none',
	'temperror',
	'permerror',
	'policy',
];
/** RFC 8601 §2.7.1 and RFC 7601's older spellings of two results. */
const ALIASES: Record<string, AuthVerdict> = { hardfail: 'fail', temperr: 'temperror', permerr: 'permerror' };

/** `value` without its RFC 5322 comments (parenthesised, possibly nested), which may hold any text. */
function withoutComments(value: string): string {
	let depth = 0;
	let out = '';
	for (let i = 0; i < value.length; i++) {
		const char = value[i];
		if (char === '\\' && depth > 0) {
			i++;
			continue;
		}
		if (char === '(') depth++;
		else if (char === ')' && depth > 0) depth--;
		else if (depth === 0) out += char;
	}
	return out;
}

function verdict(result: string): AuthVerdict | null {
	const lower = result.toLowerCase();
	const known = VERDICTS.find((v) => v === lower);
	return known ?? ALIASES[lower] ?? null;
}

/**
 * The verdicts of one `Authentication-Results` value. A method reported more than once (a mail with two DKIM
 * signatures) counts as `pass` when any of its results passed, else as its first result.
 *
 * @example parseAuthenticationResults('mx.example; spf=pass smtp.mailfrom=a.com; dkim=fail; dmarc=fail')
 * // { spf: 'pass', dkim: 'fail', dmarc: 'fail' }
 */
export function parseAuthenticationResults(value: string): MailAuthentication {
	const statements = withoutComments(value)
		.split(';')
		.map((s) => s.trim());
	const found: MailAuthentication = {};
	// The first statement is the authserv-id (with an optional version); `none` after it reports nothing.
	for (const statement of statements.slice(1)) {
		const match = /^([a-z0-9-]+)(?:\/\d+)?\s*=\s*([a-z]+)/i.exec(statement);
		if (!match?.[1] || !match[2]) continue;
		const method = match[1].toLowerCase();
		if (method !== 'spf' && method !== 'dkim' && method !== 'dmarc') continue;
		const result = verdict(match[2]);
		if (result === null) continue;
		const before = found[method];
		if (before === undefined || (before !== 'pass' && result === 'pass')) found[method] = result;
	}
	return found;
}

/** The verdicts of the mail's trusted header (see the module's comment), or null when it has none. */
export function mailAuthentication(headers: readonly MailHeader[]): MailAuthentication | null {
	const results = headerValue(headers, 'authentication-results');
	if (results !== null) return parseAuthenticationResults(results);
	const arc = headerValue(headers, 'arc-authentication-results');
	// `i=1; mx.example; spf=pass ...`: the instance tag comes before the authserv-id.
	if (arc !== null) return parseAuthenticationResults(arc.replace(/^\s*i\s*=\s*\d+\s*;/i, ''));
	return null;
}

const FAILED: readonly AuthVerdict[] = ['fail', 'softfail', 'permerror'];

/** Whether the verdicts make the mail possibly forged (the rule is the module's comment). */
export function isPossiblyForged(authentication: MailAuthentication | null): boolean {
	if (!authentication) return false;
	const { spf, dkim, dmarc } = authentication;
	if (dmarc === 'pass') return false;
	if (dmarc === 'fail' || dmarc === 'permerror') return true;
	if (spf === 'pass' || dkim === 'pass') return false;
	return (spf !== undefined && FAILED.includes(spf)) || (dkim !== undefined && FAILED.includes(dkim));
}
