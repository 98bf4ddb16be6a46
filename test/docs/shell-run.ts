/**
 * Runs the docs' shell examples (parsed by shell-parse.ts) against the app: every curl becomes a Request to the
 * Worker and must answer what the example says (a success, or the status its line's comment names: `# 409 …`),
 * and the few other commands the examples use are done here the way the shell would do them. A command or a
 * helper this file does not know fails the example: teach it here, or mark the block `no-run` with a reason.
 */
import { cookiesSet, curlOutput, parseCurl } from './curl';
import type { Command, Script, Statement, Word } from './shell-parse';

export interface Seeded {
	workspaceId: string;
	token: string;
	email: string;
	password: string;
	baseUrl: string;
}

/** What the examples run against: the app, and `npm run seed`'s equivalent. */
export interface Host {
	fetch(request: Request): Promise<Response>;
	seed(slug: string): Promise<Seeded>;
}

/** The one-line helpers a guide may define, by their exact text: the shell runs that text, this file its meaning. */
const FUNCTIONS: Record<string, string> = {
	json: `node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8'))$1";`,
};

/** The `node -e` scripts the examples run, by their text (blanks collapsed), each done here with WebCrypto. */
const NODE_SCRIPTS: Record<string, (args: string[]) => Promise<string>> = {
	// A Standard Webhooks signature: HMAC-SHA256 of "id.timestamp.body" under the whsec_ secret's bytes.
	'const [s, m] = process.argv.slice(1); console.log("v1," + require("crypto").createHmac("sha256", Buffer.from(s.slice(6), "base64")).update(m).digest("base64"))':
		async ([secret = '', message = '']) => {
			const key = Uint8Array.from(atob(secret.slice(6)), (c) => c.charCodeAt(0));
			return `v1,${base64(await hmac(key, message))}\n`;
		},
	// An identity JWT for the widget, HS256 under the workspace's identity secret.
	'const b = (o) => Buffer.from(JSON.stringify(o)).toString("base64url"); const body = b({ alg: "HS256", typ: "JWT" }) + "." + b({ email: "ana@example.com", external_id: "user-42", exp: Math.floor(Date.now() / 1000) + 600 }); const sig = require("crypto").createHmac("sha256", process.argv[1]).update(body).digest("base64url"); console.log(body + "." + sig)':
		async ([secret = '']) => {
			const b = (o: unknown) => base64url(new TextEncoder().encode(JSON.stringify(o)));
			const claims = { email: 'ana@example.com', external_id: 'user-42', exp: Math.floor(Date.now() / 1000) + 600 };
			const body = `${b({ alg: 'HS256', typ: 'JWT' })}.${b(claims)}`;
			return `${body}.${base64url(await hmac(new TextEncoder().encode(secret), body))}\n`;
		},
};

/** Output filters that only shorten what a reader sees (`| head -c 300`): their input passes through. */
const DISPLAY_FILTERS = new Set(['head', 'tail', 'strings', 'grep', 'cut']);

/** How long a statement after a `sleep` is retried: the examples sleep while a Queue catches up, which takes
 * longer on a busy test machine than on a reader's. */
const POLL_MS = 30_000;

export class Shell {
	readonly vars = new Map<string, string>();
	private readonly files = new Map<string, Uint8Array>();
	private readonly jars = new Map<string, Map<string, string>>();
	private readonly functions = new Map<string, string>();
	private pollNext = false;
	private expected: number | undefined;
	/** Every curl run, for the report. */
	curls = 0;

	constructor(private readonly host: Host) {}

	/** Runs a block; after a `sleep`, each statement left in it is retried until it passes (a Queue's work). */
	async run(script: Script): Promise<void> {
		this.pollNext = false;
		for (const statement of script) {
			const deadline = Date.now() + (this.pollNext ? POLL_MS : 0);
			for (;;) {
				try {
					await this.statement(statement);
					break;
				} catch (error) {
					if (Date.now() > deadline) throw new Error(`line ${statement.line}: ${(error as Error).message}`);
					await new Promise((resolve) => setTimeout(resolve, 250));
				}
			}
		}
	}

	private async statement(statement: Statement): Promise<void> {
		if (statement.kind === 'function') {
			if (FUNCTIONS[statement.name] !== statement.body) {
				throw new Error(`${statement.name}() is not a helper test/docs/shell-run.ts knows (or its text changed)`);
			}
			this.functions.set(statement.name, statement.body);
			return;
		}
		const status = /^#\s*(\d{3})\b/.exec(statement.comment ?? '')?.[1];
		this.expected = status ? Number(status) : undefined;
		let input: Uint8Array = new Uint8Array();
		for (const command of statement.commands) input = await this.command(command, input);
		this.expected = undefined;
	}

	/** Runs a script in `$(…)`: its output, without the trailing newlines, as the shell substitutes it. */
	private async substitute(script: Script): Promise<string> {
		let out = '';
		for (const statement of script) {
			if (statement.kind === 'function') throw new Error('a function defined inside $(…)');
			let input: Uint8Array = new Uint8Array();
			for (const command of statement.commands) input = await this.command(command, input);
			out += new TextDecoder().decode(input);
		}
		return out.replace(/\n+$/, '');
	}

	private async expand(word: Word): Promise<string> {
		let out = '';
		for (const part of word) {
			if (part.kind === 'text') out += part.text;
			else if (part.kind === 'subst') out += await this.substitute(part.script);
			else {
				const value = part.name === 'RANDOM' ? String(Math.floor(Math.random() * 32768)) : this.vars.get(part.name);
				if (value === undefined) throw new Error(`$${part.name} is used before an example sets it`);
				out += part.strip === undefined ? value : value.replace(globPrefix(part.strip), '');
			}
		}
		return out;
	}

	private async command(command: Command, input: Uint8Array): Promise<Uint8Array> {
		for (const { name, value } of command.assignments) this.vars.set(name, await this.expand(value));
		if (command.words.length === 0) return new Uint8Array();
		const [name = '', ...args] = await Promise.all(command.words.map((word) => this.expand(word)));
		const output = await this.builtin(name, args, input);
		if (!command.redirect) return output;
		const path = await this.expand(command.redirect);
		if (path !== '/dev/null') this.files.set(path, output);
		return new Uint8Array();
	}

	private async builtin(name: string, args: string[], input: Uint8Array): Promise<Uint8Array> {
		const text = (t: string) => new TextEncoder().encode(t);
		switch (name) {
			case 'curl':
				return text(await this.curl(args));
			case 'echo':
				return text(`${args.join(' ')}\n`);
			case 'sleep':
				// The wait a reader makes; then what follows in the block is retried while the Queue catches up.
				await new Promise((resolve) => setTimeout(resolve, Number(args[0]) * 1000));
				this.pollNext = true;
				return new Uint8Array();
			case 'date':
				if (args.join(' ') !== '+%s') break;
				return text(`${Math.floor(Date.now() / 1000)}\n`);
			case 'openssl':
				if (args.join(' ') !== 'rand -base64 16') break;
				return text(`${base64(crypto.getRandomValues(new Uint8Array(16)))}\n`);
			case 'printf':
				return text(printf(args));
			case 'base64':
				if (args.join(' ') !== '-d') break;
				return Uint8Array.from(atob(new TextDecoder().decode(input).trim()), (c) => c.charCodeAt(0));
			case 'npm':
				return text(await this.npm(args));
			case 'node':
			case 'node_modules/.bin/node': {
				const [flag, script = '', ...rest] = args;
				const known = flag === '-e' ? NODE_SCRIPTS[script.replace(/\s+/g, ' ').trim()] : undefined;
				if (known) return text(await known(rest));
				break;
			}
			default:
				if (DISPLAY_FILTERS.has(name)) return input;
				if (this.functions.get(name) === FUNCTIONS.json && name === 'json') {
					return text(`${jsonAt(new TextDecoder().decode(input), args[0] ?? '')}\n`);
				}
		}
		throw new Error(`\`${[name, ...args].join(' ').slice(0, 120)}\` is not a command the docs' test runs`);
	}

	/** `npm run --silent seed [-- --workspace <slug>]`, the only npm command an example runs. */
	private async npm(args: string[]): Promise<string> {
		const line = args.join(' ');
		const match = /^run --silent seed(?: -- --workspace ([a-z0-9-]+))?$/.exec(line);
		if (!match) throw new Error(`\`npm ${line}\` is not run by the docs' test`);
		return `${JSON.stringify(await this.host.seed(match[1] ?? 'demo'))}\n`;
	}

	private async curl(args: string[]): Promise<string> {
		const call = parseCurl(args, this.files, this.jars);
		this.curls++;
		const { method, url } = call.request;
		const response = await this.host.fetch(call.request);
		const ok =
			this.expected === undefined
				? (response.status >= 200 && response.status < 400) || response.status === 101
				: response.status === this.expected;
		if (!ok) {
			const body = response.status === 101 ? '' : await response.text();
			const wanted = this.expected ?? 'a success';
			throw new Error(`${method} ${url} answered ${response.status} (wanted ${wanted}): ${body.slice(0, 400)}`);
		}
		if (response.webSocket) {
			response.webSocket.accept();
			response.webSocket.close(1000, 'the example is done');
		}
		if (call.saveCookiesTo) {
			const jar = this.jars.get(call.saveCookiesTo) ?? new Map<string, string>();
			for (const [name, value] of cookiesSet(response)) jar.set(name, value);
			this.jars.set(call.saveCookiesTo, jar);
		}
		return curlOutput(call, response);
	}
}

/** The value at a path like `.data[0].id` in a JSON text; nothing there fails the example. */
export function jsonAt(json: string, path: string): string {
	let value: unknown = JSON.parse(json);
	const steps = path.match(/\.[A-Za-z_$][\w$]*|\[\d+\]/g) ?? [];
	if (steps.join('') !== path) throw new Error(`json: ${path} is not a path such as .data[0].id`);
	for (const step of steps) {
		const key = step.startsWith('[') ? Number(step.slice(1, -1)) : step.slice(1);
		value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[key] : undefined;
	}
	if (value === undefined) throw new Error(`json: nothing at ${path} in ${json.slice(0, 300)}`);
	return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `${VAR#pattern}`: the shortest prefix matching the glob (`*` any text, `?` one character). */
function globPrefix(pattern: string): RegExp {
	const source = pattern.replace(/[.+^${}()|[\]\\*?]/g, (c) => (c === '*' ? '.*?' : c === '?' ? '.' : `\\${c}`));
	return new RegExp(`^${source}`, 's');
}

/** printf's `%%`, `%s` and the escapes `\n`, `\t`, `\\`. */
function printf([format = '', ...args]: string[]): string {
	let next = 0;
	return format
		.replace(/%%|%s/g, (m) => (m === '%%' ? '%' : (args[next++] ?? '')))
		.replace(/\\([nt\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));
}

async function hmac(key: Uint8Array, message: string): Promise<Uint8Array> {
	const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
	return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, new TextEncoder().encode(message)));
}

function base64(bytes: Uint8Array): string {
	return btoa(String.fromCharCode(...bytes));
}

function base64url(bytes: Uint8Array): string {
	return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
