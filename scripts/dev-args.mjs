// The arguments of `npm run dev -- <wrangler flags>`, split into what dev.mjs needs itself (the port and
// address it prints and passes) and everything else, which goes to `wrangler dev` unchanged. Pure, so
// test/unit/dev-args.test.ts covers it without starting anything.

/** The flags this script takes itself, and what each sets. */
const FLAGS = { '--port': 'port', '-p': 'port', '--ip': 'ip' };

// Flags that would serve another database or configuration than the local one this script migrates and
// seeds (its printed token would not work there): refused, with what to run instead.
const ELSEWHERE = ['--remote', '-r', '--persist-to', '--config', '-c', '--env', '-e'];

/**
 * `parseDevArgs(['--port', '3000', '--local-protocol', 'https'], { PORT: '9000' })` gives
 * `{ port: '3000', ip: '127.0.0.1', protocol: 'https', wranglerArgs: ['--local-protocol', 'https'] }`.
 * The port comes from `--port N`, `--port=N`, `-p N` or `-p=N` (the last one given wins, as in wrangler),
 * else `PORT`, else 8787. Throws a readable Error for a missing or invalid value.
 * @param {readonly string[]} argv
 * @param {Record<string, string | undefined>} [env]
 */
export function parseDevArgs(argv, env = {}) {
	/** @type {{ port?: string, ip?: string }} */
	const taken = {};
	const wranglerArgs = [];
	// What the printed URLs start with: wrangler's `--local-protocol` (passed on as well), else http.
	let protocol = 'http';
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] ?? '';
		const [name, inline] = splitFlag(arg);
		if (ELSEWHERE.includes(name)) {
			throw new Error(
				`${name} is not for npm run dev, which migrates and seeds the local database itself: run \`npx wrangler dev ${name} ...\` directly.`,
			);
		}
		const key = Object.hasOwn(FLAGS, name) ? FLAGS[/** @type {keyof typeof FLAGS} */ (name)] : undefined;
		if (key === undefined) {
			if (name === '--local-protocol') protocol = inline ?? argv[i + 1] ?? protocol;
			wranglerArgs.push(arg);
			continue;
		}
		let value = inline;
		if (value === undefined) {
			value = argv[i + 1];
			if (value === undefined || value.startsWith('-')) throw new Error(`${name} needs a value, e.g. ${name} 3000`);
			i++;
		}
		taken[key] = value;
	}
	const port = taken.port ?? env.PORT ?? '8787';
	if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65_535) {
		throw new Error(`Invalid port "${port}": expected a number from 1 to 65535.`);
	}
	return { port, ip: taken.ip ?? '127.0.0.1', protocol, wranglerArgs };
}

/** `--port=3000` → ['--port', '3000']; `--port` → ['--port', undefined]. */
function splitFlag(arg) {
	const eq = arg.indexOf('=');
	return arg.startsWith('-') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}
