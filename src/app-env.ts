import type { Database } from './db/client';
import type { CREDENTIAL_KINDS } from './db/schema';
import type { RateLimitDecision } from './model/rate-limits';

/**
 * What a request authenticated with: an API token (`Authorization: Bearer`), or a console session (its
 * cookie). Either is checked and counted by a `TokenGate` named after its SHA-256.
 */
export interface Credential {
	kind: (typeof CREDENTIAL_KINDS)[number];
	/** `tok_…` or `ses_…`: what an operator's sockets re-check before they act (`isCredentialActive`). */
	id: string;
	/** Its SHA-256 (hex): the name of its `TokenGate`, which checks it and counts its requests. */
	hash: string;
	/** When it was issued (ms): a token's age decides the rotation warning (src/auth/token-age.ts). */
	createdAt: number;
	/** What the API log shows for it: a token's hint (`prly_…abcd`), or `console`. */
	hint: string;
}

/** Who is calling, resolved from the Bearer token or the console's session by `operatorAuth`. */
export interface Caller {
	workspaceId: string;
	operatorId: string;
	credential: Credential;
	permissions: string[];
}

/** Hono's typing for this app: the Worker bindings and what middleware puts on the context. */
export interface AppEnv {
	Bindings: Env;
	Variables: {
		db: Database;
		caller: Caller;
		/** The caller's rate-limit count for this request, once `operatorAuth` made it (the API log records it). */
		rate: RateLimitDecision;
	};
}
