import { CompactSign, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import { decodeBase64urlJson } from './secrets';

/**
 * Identity verification for the widget's `identify`: the site's backend signs a short-lived HS256 JWT with
 * its workspace's identity secret (see `identitySecret`), and we trust the email or external id in it only
 * if the signature holds. Without it, anyone could call `identify` with someone else's email.
 */
export type IdentityClaims = { email?: string; externalId?: string; name?: string; expiresAt: number };

export type IdentityFailure = 'malformed' | 'algorithm' | 'signature' | 'expired' | 'lifetime' | 'claims';

const MAX_JWT_LENGTH = 4096;
const CLOCK_LEEWAY_MS = 30_000;
// A stolen token can be replayed until it expires, and there is no revocation list to consult; an hour is
// long enough for a page left open and short enough that a leaked token soon stops working.
const MAX_LIFETIME_MS = 60 * 60 * 1000;
const MAX_EMAIL_LENGTH = 254;
const MAX_EXTERNAL_ID_LENGTH = 128;
const MAX_NAME_LENGTH = 200;
// Valid-looking, not RFC 5322: one @, no spaces or control characters, a dot in the domain.
const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@.\p{Cc}]+(\.[^\s@.\p{Cc}]+)+$/u;

type Verified = { ok: true; claims: IdentityClaims } | { ok: false; reason: IdentityFailure };

/**
 * Checks an identity JWT against the workspace's identity secret, e.g.
 * `await verifyIdentityJwt(await identitySecret(env.PARLEY_SECRET, workspaceId, version), body.jwt)`.
 * The signature, the payload and the time claims are jose's; the header policy before it and the claim
 * shapes after it are ours.
 */
export async function verifyIdentityJwt(secret: string, jwt: string, now = Date.now()): Promise<Verified> {
	if (jwt.length > MAX_JWT_LENGTH) return failure('malformed');
	const parts = jwt.split('.');
	const headerPart = parts[0];
	if (parts.length !== 3 || headerPart === undefined) return failure('malformed');
	// Strict base64url (jose's decoder forgives padding) and a JSON object, before anything is verified.
	const header = decodeBase64urlJson(headerPart);
	if (header === null) return failure('malformed');
	// The algorithm is ours to choose, not the token's: anything but HS256 ('none' above all) is refused.
	if (header.alg !== 'HS256') return failure('algorithm');
	if (header.typ !== undefined && header.typ !== 'JWT') return failure('malformed');
	// RFC 7515 §4.1.11: extensions we do not understand must not be ignored, and we understand none
	// (jose would honour `b64: false`).
	if (header.crit !== undefined) return failure('malformed');
	let payload: JWTPayload;
	try {
		({ payload } = await jwtVerify(jwt, new TextEncoder().encode(secret), {
			algorithms: ['HS256'],
			currentDate: new Date(now),
			clockTolerance: CLOCK_LEEWAY_MS / 1000,
			requiredClaims: ['exp'],
		}));
	} catch (error) {
		return failure(reasonOf(error));
	}
	return checkClaims(payload, now);
}

/** The named reason for one of jose's errors. */
function reasonOf(error: unknown): IdentityFailure {
	if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'algorithm';
	if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'signature';
	if (error instanceof joseErrors.JWTExpired) return 'expired';
	if (error instanceof joseErrors.JWTClaimValidationFailed) {
		// A token valid only in the future would stretch the replay window past its hour.
		return error.claim === 'nbf' && error.reason === 'check_failed' ? 'lifetime' : 'claims';
	}
	if (error instanceof joseErrors.JOSEError) return 'malformed';
	throw error;
}

/**
 * What a site's backend does (any JWT library works): an HS256 JWT signed with the identity secret's
 * UTF-8 bytes, e.g. `signIdentityJwt(secret, { email, exp: Math.floor(Date.now() / 1000) + 300 })`.
 * The claims go out as given, unchecked, so tests can sign what a careless backend would.
 */
export async function signIdentityJwt(secret: string, claims: Record<string, unknown>): Promise<string> {
	return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
		.setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
		.sign(new TextEncoder().encode(secret));
}

/** What jose leaves to us: `exp` at most an hour ahead, `iat` not in the future, and the claims' shapes. */
function checkClaims(payload: JWTPayload, now: number): Verified {
	const { exp, iat, email, external_id: externalIdClaim, sub, name } = payload;
	if (!isNumericDate(exp)) return failure('claims');
	if (exp * 1000 > now + MAX_LIFETIME_MS + CLOCK_LEEWAY_MS) return failure('lifetime');
	if (iat !== undefined && iat * 1000 > now + CLOCK_LEEWAY_MS) return failure('lifetime');

	if (email !== undefined && !isEmail(email)) return failure('claims');
	if (externalIdClaim !== undefined && !isExternalId(externalIdClaim)) return failure('claims');
	if (sub !== undefined && !isExternalId(sub)) return failure('claims');
	if (name !== undefined && (typeof name !== 'string' || name.length > MAX_NAME_LENGTH)) return failure('claims');
	const externalId = externalIdClaim ?? sub;
	if (email === undefined && externalId === undefined) return failure('claims');

	const claims: IdentityClaims = { expiresAt: exp * 1000 };
	if (email !== undefined) claims.email = email.toLowerCase();
	if (externalId !== undefined) claims.externalId = externalId;
	if (name !== undefined) claims.name = name;
	return { ok: true, claims };
}

function isNumericDate(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}

function isEmail(value: unknown): value is string {
	return typeof value === 'string' && value.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(value);
}

function isExternalId(value: unknown): value is string {
	return typeof value === 'string' && value.length >= 1 && value.length <= MAX_EXTERNAL_ID_LENGTH;
}

function failure(reason: IdentityFailure): Verified {
	return { ok: false, reason };
}
