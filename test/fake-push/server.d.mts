/** Types of server.mjs for the TypeScript that starts it (vitest.config.ts, the browser tests' setup). */

export const FAKE_PUSH_HOST: string;

export interface FakePush {
	/** `http://127.0.0.1:<port>`: the Worker's `PUSH_RELAY_URL`. */
	url: string;
	close(): Promise<void>;
}

/** Starts the fake push service on 127.0.0.1 (`port` 0: any free port). */
export function startFakePush(options?: { port?: number }): Promise<FakePush>;
