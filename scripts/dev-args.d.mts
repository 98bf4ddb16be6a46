// Types for dev-args.mjs, so its unit test (TypeScript) can call it.

export interface DevArgs {
	/** The port wrangler listens on and the printed URLs use. */
	port: string;
	/** The address wrangler listens on (127.0.0.1 unless `--ip` is given). */
	ip: string;
	/** What the printed URLs start with: `--local-protocol` when given (it is passed on too), else http. */
	protocol: string;
	/** Every other argument, for `wrangler dev`, unchanged and in order. */
	wranglerArgs: string[];
}

export function parseDevArgs(argv: readonly string[], env?: Record<string, string | undefined>): DevArgs;
