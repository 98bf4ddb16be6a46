/**
 * Token rotation, as the spec recommends it: "rotation about every 90 days". Tokens never expire (the spec
 * shows no lifetime, and an integration that stops at night is worse than an old token), so an old token
 * keeps working and every answer to it says so instead: RFC 9745's `Deprecation` header, which HTTP client
 * libraries and API gateways already recognise, dated the moment the token turned 90 days old.
 */
export const ROTATE_AFTER_DAYS = 90;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TokenAge {
	/** Whole days since the token was issued. */
	ageDays: number;
	/** When rotation falls due (ms since the epoch): 90 days after issue. */
	rotateAfter: number;
	/** Whether the token is older than 90 days. */
	rotationDue: boolean;
}

/** `tokenAge(issuedAt, Date.now())`: how old a token is and whether it is due for rotation. */
export function tokenAge(createdAt: number, now: number): TokenAge {
	const rotateAfter = createdAt + ROTATE_AFTER_DAYS * DAY_MS;
	return { ageDays: Math.max(0, Math.floor((now - createdAt) / DAY_MS)), rotateAfter, rotationDue: now > rotateAfter };
}

/**
 * The headers every answer to a token older than 90 days carries, or null for a younger one:
 * `Deprecation: @<unix seconds>` (RFC 9745: since when) and a `Link` with `rel="deprecation"` to
 * `GET /v3/me`, which shows the token's age and exists on every deployment (a self-hosted Worker does not
 * know where its documentation lives).
 */
export function rotationWarning(createdAt: number, now: number): Record<'Deprecation' | 'Link', string> | null {
	const { rotateAfter, rotationDue } = tokenAge(createdAt, now);
	if (!rotationDue) return null;
	return {
		Deprecation: `@${Math.floor(rotateAfter / 1000)}`,
		Link: '</v3/me>; rel="deprecation"; type="application/json"',
	};
}
