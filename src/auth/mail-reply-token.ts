/**
 * The reply address of a conversation's mail: `reply+<conversation>.<signature>@<inbound domain>`. A reply
 * to it lands in that conversation and no other. The signature is HMAC-SHA256 over the workspace and the
 * conversation with a key derived from PARLEY_SECRET for this purpose alone, cut to 128 bits: it cannot be
 * guessed, and an address written by hand (another conversation's id, another workspace's) does not verify.
 * The workspace is not in the address: the receiver reads it from the conversation the id names, so a valid
 * signature also proves the pair.
 *
 * Everything is lower-case Crockford base32, because mail systems may change the case of a local part
 * (RFC 5321 lets a receiver treat it as case-sensitive, many do not); the local part stays under RFC 5321's
 * 64 characters (`reply+` 6, the id 26, `.` 1, the signature 26: 59).
 */
import { deploymentSecret, deriveKey } from './secrets';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const PREFIX = 'reply+';
const SIGNATURE_BYTES = 16;
const CONVERSATION_PREFIX = 'conv_';

/** What a reply address names before its signature is checked. */
export interface ReplyAddressParts {
	conversationId: string;
	signature: string;
}

function base32(bytes: Uint8Array): string {
	let out = '';
	let buffer = 0;
	let bits = 0;
	for (const byte of bytes) {
		buffer = (buffer << 8) | byte;
		bits += 8;
		while (bits >= 5) {
			out += CROCKFORD[(buffer >>> (bits - 5)) & 31];
			bits -= 5;
		}
		buffer &= (1 << bits) - 1;
	}
	if (bits > 0) out += CROCKFORD[(buffer << (5 - bits)) & 31];
	return out;
}

async function signature(env: Pick<Env, 'PARLEY_SECRET'>, workspaceId: string, conversationId: string) {
	const key = await deriveKey(deploymentSecret(env), 'mail-reply');
	const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${workspaceId}:${conversationId}`));
	return base32(new Uint8Array(mac).slice(0, SIGNATURE_BYTES));
}

/** The local part (before the `@`) of the conversation's reply address. */
export async function replyLocalPart(
	env: Pick<Env, 'PARLEY_SECRET'>,
	workspaceId: string,
	conversationId: string,
): Promise<string> {
	if (!conversationId.startsWith(CONVERSATION_PREFIX)) throw new RangeError(`Not a conversation id: ${conversationId}`);
	const id = conversationId.slice(CONVERSATION_PREFIX.length).toLowerCase();
	return `${PREFIX}${id}.${await signature(env, workspaceId, conversationId)}`;
}

/**
 * The conversation and signature a local part claims, or null when it is not a reply address at all (an
 * inbound address like `support`). Case-insensitive. Nothing is trusted until `verifyReplyAddress` says so.
 */
export function parseReplyLocalPart(localPart: string): ReplyAddressParts | null {
	const match = /^reply\+([0-9a-hjkmnp-tv-z]{26})\.([0-9a-hjkmnp-tv-z]{26})$/.exec(localPart.toLowerCase());
	if (!match?.[1] || !match[2]) return null;
	return { conversationId: `${CONVERSATION_PREFIX}${match[1].toUpperCase()}`, signature: match[2] };
}

/**
 * Whether `parts` is the reply address of `conversationId` in `workspaceId` (the workspace the conversation
 * belongs to, as stored). Compared in constant time.
 */
export async function verifyReplyAddress(
	env: Pick<Env, 'PARLEY_SECRET'>,
	workspaceId: string,
	parts: ReplyAddressParts,
): Promise<boolean> {
	const expected = new TextEncoder().encode(await signature(env, workspaceId, parts.conversationId));
	const given = new TextEncoder().encode(parts.signature.toLowerCase());
	return expected.byteLength === given.byteLength && crypto.subtle.timingSafeEqual(expected, given);
}
