import type { Database } from './db/client';

/** Who is calling, resolved from the Bearer token by `bearerAuth`. */
export interface Caller {
	workspaceId: string;
	operatorId: string;
	tokenId: string;
	/** The token's SHA-256 (hex): the name of its `TokenGate`, which checks it and counts its requests. */
	tokenHash: string;
	/** When the token was issued (ms): its age decides the rotation warning (src/auth/token-age.ts). */
	tokenCreatedAt: number;
	permissions: string[];
}

/** Hono's typing for this app: the Worker bindings and what middleware puts on the context. */
export interface AppEnv {
	Bindings: Env;
	Variables: {
		db: Database;
		caller: Caller;
	};
}
