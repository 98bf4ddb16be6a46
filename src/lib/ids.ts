// Crockford's base32, as ULIDs use it: sortable by creation time, no ambiguous letters.
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A prefixed ULID: 48 bits of millisecond time then 80 random bits, e.g. `conv_01JD3Q...`.
 * The prefix tells a reader what the id names; the random part makes ids unguessable across workspaces.
 */
export function newId(prefix: string, now = Date.now()): string {
	let time = '';
	let t = now;
	for (let i = 0; i < 10; i++) {
		time = CROCKFORD[t % 32] + time;
		t = Math.floor(t / 32);
	}
	const random = crypto.getRandomValues(new Uint8Array(16));
	let rest = '';
	for (const byte of random) rest += CROCKFORD[byte % 32];
	return `${prefix}_${time}${rest}`;
}

/** Milliseconds since the epoch as the API's ISO-8601 UTC string. */
export function iso(ms: number): string {
	return new Date(ms).toISOString();
}

export function isoOrNull(ms: number | null): string | null {
	return ms === null ? null : iso(ms);
}
