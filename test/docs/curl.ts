/**
 * A curl command line (already expanded into its arguments) as the Request it would send, and the text curl
 * would print for the Response: the options the docs use and nothing more. An option outside that set is an
 * error, so an example never runs differently from how curl would run it.
 */

export interface CurlCall {
	request: Request;
	/** `-i`: the status line and headers before the body. */
	include: boolean;
	/** `-o /dev/null` (or a file): the body is not printed. */
	discardBody: boolean;
	/** `-w`: printed after the body, `%{http_code}` and `%{content_type}` filled in. */
	writeOut?: string;
	/** `-c file`: the cookies the answer sets are kept there; `-b file`: sent from there. */
	saveCookiesTo?: string;
	sendCookiesFrom?: string;
}

/** Options that change nothing here: silence, no buffering, HTTP/1.1 (workerd's fetch is that already). */
const IGNORED = new Set(['-s', '-S', '-N', '--silent', '--no-buffer', '--http1.1', '-L']);
const WITH_VALUE = new Set(['-X', '-H', '-d', '--data', '--data-binary', '-o', '-w', '-c', '-b', '--max-time']);

/**
 * Reads curl's arguments (the words after `curl`). `files` answers `@path` bodies and cookie jars.
 * @example parseCurl(['-s', '-X', 'POST', 'http://localhost:8787/v3/tags', '-d', '{}'], files, jars)
 */
export function parseCurl(
	args: string[],
	files: ReadonlyMap<string, Uint8Array>,
	jars: ReadonlyMap<string, Map<string, string>>,
): CurlCall {
	let method: string | undefined;
	let url: string | undefined;
	let body: Uint8Array | string | undefined;
	const headers = new Headers();
	const call: Omit<CurlCall, 'request'> = { include: false, discardBody: false };
	for (let i = 0; i < args.length; i++) {
		let arg = args[i] as string;
		// Short flags written together (`-si`, `-sN`).
		if (/^-[a-zA-Z]{2,}$/.test(arg)) {
			const flags = arg.slice(1).split('');
			args.splice(i, 1, ...flags.map((f) => `-${f}`));
			arg = args[i] as string;
		}
		if (IGNORED.has(arg)) continue;
		if (arg === '-i' || arg === '--include') {
			call.include = true;
			continue;
		}
		if (!arg.startsWith('-')) {
			if (url !== undefined) throw new Error(`curl: a second URL ${arg}`);
			url = arg;
			continue;
		}
		if (!WITH_VALUE.has(arg)) throw new Error(`curl: ${arg} is not an option the docs' test runs`);
		const value = args[++i];
		if (value === undefined) throw new Error(`curl: ${arg} needs a value`);
		switch (arg) {
			case '-X':
				method = value;
				break;
			case '-H': {
				const colon = value.indexOf(':');
				if (colon < 1) throw new Error(`curl: header without a name: ${value}`);
				headers.append(value.slice(0, colon).trim(), value.slice(colon + 1).trim());
				break;
			}
			case '-d':
			case '--data':
			case '--data-binary':
				body = value.startsWith('@') ? fileOf(files, value.slice(1), arg === '--data-binary') : value;
				break;
			case '-o':
				call.discardBody = true;
				break;
			case '-w':
				call.writeOut = value;
				break;
			case '-c':
				call.saveCookiesTo = value;
				break;
			case '-b': {
				call.sendCookiesFrom = value;
				const jar = jars.get(value);
				if (!jar) throw new Error(`curl: no cookies saved in ${value} yet`);
				headers.set('Cookie', [...jar].map(([name, v]) => `${name}=${v}`).join('; '));
				break;
			}
			case '--max-time':
				break;
		}
	}
	if (url === undefined) throw new Error('curl: no URL');
	if (body !== undefined && !headers.has('Content-Type')) {
		headers.set('Content-Type', 'application/x-www-form-urlencoded');
	}
	const request = new Request(url, {
		method: method ?? (body === undefined ? 'GET' : 'POST'),
		headers,
		body,
		redirect: 'manual',
	});
	return { request, ...call };
}

/** `-d @file` drops the file's line breaks, as curl does; `--data-binary @file` sends it as it is. */
function fileOf(files: ReadonlyMap<string, Uint8Array>, path: string, binary: boolean): Uint8Array | string {
	const bytes = files.get(path);
	if (!bytes) throw new Error(`curl: no file ${path} was written before`);
	return binary ? bytes : new TextDecoder().decode(bytes).replace(/[\r\n]/g, '');
}

/** What curl prints for `response`, given how it was called. */
export async function curlOutput(call: CurlCall, response: Response): Promise<string> {
	let out = '';
	if (call.include) {
		out += `HTTP/1.1 ${response.status} ${response.statusText}\r\n`;
		for (const [name, value] of response.headers) out += `${name}: ${value}\r\n`;
		out += '\r\n';
	}
	if (!call.discardBody && response.status !== 101) out += await response.text();
	if (call.writeOut !== undefined) {
		out += call.writeOut
			.replaceAll('%{http_code}', String(response.status))
			.replaceAll('%{content_type}', response.headers.get('Content-Type') ?? '')
			.replaceAll('\\n', '\n');
	}
	return out;
}

/** The cookies a response sets, by name (what curl's `-c` jar keeps). */
export function cookiesSet(response: Response): Array<[string, string]> {
	return response.headers.getSetCookie().map((line) => {
		const pair = line.split(';')[0] ?? '';
		const eq = pair.indexOf('=');
		return [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
	});
}
