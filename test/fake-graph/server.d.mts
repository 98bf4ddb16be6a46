/** Types of server.mjs for the TypeScript that starts it (vitest.config.ts) and the tests. */

/** Meta's media URLs stay valid this long. */
export const MEDIA_URL_TTL_MS: number;

/** Meta's error body: `{ error: { message, type, code, error_data?, error_subcode?, fbtrace_id } }`. */
export function metaError(
	code: number,
	title: string,
	details?: string,
	subcode?: number,
): { error: { message: string; type: string; code: number; fbtrace_id: string } };

export interface FakeGraph {
	/** `http://127.0.0.1:<port>`. */
	url: string;
	state(): unknown;
	close(): Promise<void>;
}

/** Starts the fake Graph API on 127.0.0.1 (`port` 0: any free port). */
export function startFakeGraph(options?: { port?: number }): Promise<FakeGraph>;
