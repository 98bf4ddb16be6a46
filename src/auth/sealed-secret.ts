/**
 * A credential Parley must use again later (a WhatsApp number's access token and app secret), kept sealed:
 * a compact JWE (`dir` + `A256GCM`) under a key derived from PARLEY_SECRET for this purpose alone. The
 * protected header names what it seals (`ctx`, e.g. `ws_1:wan_2:accessToken`) and opening checks it, so a
 * sealed value copied into another row, another workspace or another field does not open there: AES-GCM
 * authenticates the header, so the name cannot be edited either.
 */
import { CompactEncrypt, compactDecrypt } from 'jose';
import { deploymentSecret, deriveKey } from './secrets';

const LABEL = 'sealed-secret';

/** A sealed value that does not open: another deployment secret, another context, or altered bytes. */
export class SealedSecretError extends Error {
	override readonly name = 'SealedSecretError';
}

/** The AES-256 key: HMAC-SHA256 of a fixed label under the purpose's derived key (32 bytes, as A256GCM takes). */
async function sealingKey(env: Pick<Env, 'PARLEY_SECRET'>): Promise<Uint8Array> {
	const key = await deriveKey(deploymentSecret(env), LABEL);
	return new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode('A256GCM')));
}

/** Seals `value` for the context `ctx` (where it will be stored: `<workspace>:<row>:<field>`). */
export async function seal(env: Pick<Env, 'PARLEY_SECRET'>, ctx: string, value: string): Promise<string> {
	return new CompactEncrypt(new TextEncoder().encode(value))
		.setProtectedHeader({ alg: 'dir', enc: 'A256GCM', ctx })
		.encrypt(await sealingKey(env));
}

/** Opens a value sealed for `ctx`; SealedSecretError when it was sealed for anything else or does not open. */
export async function unseal(env: Pick<Env, 'PARLEY_SECRET'>, ctx: string, sealed: string): Promise<string> {
	let opened: Awaited<ReturnType<typeof compactDecrypt>>;
	try {
		opened = await compactDecrypt(sealed, await sealingKey(env), {
			keyManagementAlgorithms: ['dir'],
			contentEncryptionAlgorithms: ['A256GCM'],
		});
	} catch (error) {
		throw new SealedSecretError('The sealed value does not open under this deployment secret.', { cause: error });
	}
	if (opened.protectedHeader.ctx !== ctx) {
		throw new SealedSecretError(`The sealed value was sealed for another place than ${ctx}.`);
	}
	return new TextDecoder().decode(opened.plaintext);
}
