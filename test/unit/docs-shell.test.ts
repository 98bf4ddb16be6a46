import { describe, expect, it } from 'vitest';
import { shellBlocks } from '../docs/blocks';
import { curlOutput, parseCurl } from '../docs/curl';
import { parseShell, type Word } from '../docs/shell-parse';
import { jsonAt } from '../docs/shell-run';

/** A word's parts written back as shell, to compare parses at a glance. */
function show(word: Word): string {
	return word
		.map((p) =>
			p.kind === 'text' ? p.text : p.kind === 'var' ? `<${p.name}${p.strip ? `#${p.strip}` : ''}>` : '<$()>',
		)
		.join('');
}

function commands(source: string) {
	return parseShell(source).map((s) =>
		s.kind === 'function'
			? `fn ${s.name}`
			: s.commands.map((c) => [
					...c.assignments.map((a) => `${a.name}=${show(a.value)}`),
					...c.words.map(show),
					...(c.redirect ? [`>${show(c.redirect)}`] : []),
				]),
	);
}

describe('parseShell', () => {
	it.each([
		['curl -s $BASE/health', [[['curl', '-s', '<BASE>/health']]]],
		[`echo 'a "b" $C' "d $E \\"f\\""`, [[['echo', 'a "b" $C', 'd <E> "f"']]]],
		['A=1; B="x y" && echo $A', [[['A=1']], [['B=x y']], [['echo', '<A>']]]],
		['curl -s x \\\n  -d \'{\n"a": 1}\'', [[['curl', '-s', 'x', '-d', '{\n"a": 1}']]]],
		['X=$(curl -s u | json .id)', [[['X=<$()>']]]],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: shell's ${…}, not a template
		['echo ${LINK#*#token=} ${A}', [[['echo', '<LINK#*#token=>', '<A>']]]],
		['echo hi > /tmp/f   # 409: a comment', [[['echo', 'hi', '>/tmp/f']]]],
		['json() { node -pe "x$1"; }\necho', ['fn json', [['echo']]]],
		['echo "" $', [[['echo', '', '$']]]],
	])('%s', (source, expected) => {
		expect(commands(source)).toEqual(expected);
	});

	it('keeps the comment that ends a statement, and numbers lines from the block', () => {
		const [statement] = parseShell('\ncurl -s x \\\n  -w y   # 409: taken', 10);
		expect(statement).toMatchObject({ kind: 'pipeline', line: 11, comment: '# 409: taken' });
	});

	it.each([
		['echo $(curl x', 'never closed'],
		["echo 'a", 'never closed'],
		['echo a &', 'background'],
		['cat < f', 'redirection'],
		// biome-ignore lint/suspicious/noTemplateCurlyInString: shell's ${…}, not a template
		['echo ${A/b/c}', 'not run'],
		['echo `date`', 'backquotes'],
		['A=1 echo', 'assignment before a command'],
	])('refuses %s', (source, message) => {
		expect(() => parseShell(source)).toThrow(message);
	});
});

describe('parseCurl', () => {
	const files = new Map([['logo.png', new Uint8Array([137, 80, 78, 71])]]);
	const jars = new Map([['/tmp/jar', new Map([['sid', 'abc']])]]);

	it('builds the request curl would send', async () => {
		const call = parseCurl(
			['-s', '-X', 'PATCH', 'http://h/v3/x', '-H', 'Authorization: Bearer t', '-d', '{"a": 1}', '-b', '/tmp/jar'],
			files,
			jars,
		);
		expect(call.request.method).toBe('PATCH');
		expect(call.request.url).toBe('http://h/v3/x');
		expect(call.request.headers.get('Authorization')).toBe('Bearer t');
		expect(call.request.headers.get('Cookie')).toBe('sid=abc');
		expect(call.request.headers.get('Content-Type')).toBe('application/x-www-form-urlencoded');
		expect(await call.request.text()).toBe('{"a": 1}');
	});

	it('posts when there is a body and no -X, and sends a file as it is with --data-binary', async () => {
		const call = parseCurl(['http://h/logo', '--data-binary', '@logo.png'], files, jars);
		expect(call.request.method).toBe('POST');
		expect(new Uint8Array(await call.request.arrayBuffer())).toEqual(files.get('logo.png'));
	});

	it('prints the headers with -si, and only the write-out with -o /dev/null', async () => {
		const response = () => new Response('body', { status: 201, headers: { 'Content-Type': 'text/plain' } });
		const included = parseCurl(['-si', 'http://h/'], files, jars);
		expect(await curlOutput(included, response())).toMatch(
			/^HTTP\/1.1 201 .*\r\ncontent-type: text\/plain\r\n\r\nbody$/s,
		);
		const quiet = parseCurl(
			['-s', '-o', '/dev/null', '-w', '%{http_code} %{content_type}\\n', 'http://h/'],
			files,
			jars,
		);
		expect(await curlOutput(quiet, response())).toBe('201 text/plain\n');
	});

	it.each([
		[['-k', 'http://h/'], 'not an option'],
		[['-s'], 'no URL'],
		[['http://h/', '-d', '@missing'], 'no file'],
		[['http://h/', '-b', '/tmp/none'], 'no cookies'],
		[['http://h/', '-H', 'nocolon'], 'without a name'],
	])('refuses %j', (args, message) => {
		expect(() => parseCurl(args, files, jars)).toThrow(message);
	});
});

describe('jsonAt', () => {
	it.each([
		['{"id": "x"}', '.id', 'x'],
		['{"data": [{"id": "a"}, {"id": "b"}]}', '.data[1].id', 'b'],
		['{"counts": {"sent": 1}}', '.counts', '{"sent":1}'],
	])('%s %s', (json, path, expected) => {
		expect(jsonAt(json, path)).toBe(expected);
	});

	it('fails when nothing is there, as the example would print "undefined"', () => {
		expect(() => jsonAt('{"data": []}', '.data[0].id')).toThrow('nothing at .data[0].id');
		expect(() => jsonAt('{}', 'id')).toThrow('not a path');
	});
});

describe('shellBlocks', () => {
	it('finds sh blocks, indented ones too, and the reason of one not run', () => {
		const markdown = [
			'```sh',
			'curl -s x',
			'```',
			'- item:',
			'  ```bash',
			'  echo a',
			'  ```',
			'```sh no-run: serves until stopped',
			'npm run dev',
			'```',
			'```js',
			'curl()',
			'```',
		].join('\n');
		expect(shellBlocks('f.md', markdown)).toEqual([
			{ file: 'f.md', line: 2, text: 'curl -s x' },
			{ file: 'f.md', line: 6, text: 'echo a' },
			{ file: 'f.md', line: 9, text: 'npm run dev', noRun: 'serves until stopped' },
		]);
	});

	it('refuses an info string it does not know, so a reason is never misspelt into a run', () => {
		expect(() => shellBlocks('f.md', '```sh norun\nx\n```')).toThrow('unknown info string');
	});
});
