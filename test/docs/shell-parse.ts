/**
 * The shell the docs' examples are written in, as far as they use it: enough to read every ```sh block of
 * README.md and docs/*.md so that test/docs-examples.test.ts can run it against the app. No library parses
 * shell with command substitution into a form we can execute inside workerd (shell-quote has no `$(…)`,
 * bash-parser is unmaintained), so this reads the subset by hand: words with '…' and "…" quoting, `$VAR`,
 * `${VAR}`, `${VAR#pattern}`, `$(…)`, pipes, `;`, `&&`, `> file`, `# comments`, backslash-newline, and
 * one-line `name() { …; }` definitions. Anything else is an error, so an example never half-runs.
 */

export type Part =
	| { kind: 'text'; text: string }
	| { kind: 'var'; name: string; strip?: string }
	| { kind: 'subst'; script: Script };

/** One shell word: the parts it is made of, expanded and joined when it runs. */
export type Word = Part[];

export interface Command {
	words: Word[];
	assignments: Array<{ name: string; value: Word }>;
	/** `> file`: where the command's output goes instead of the pipeline. */
	redirect?: Word;
}

export type Statement =
	| { kind: 'pipeline'; commands: Command[]; line: number; comment?: string }
	| { kind: 'function'; name: string; body: string; line: number };

export type Script = Statement[];

const ENDS_WORD = new Set([' ', '\t', '\n', ';', '|', '&', ')', '>', '<']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Parses a shell script of the subset above; `firstLine` numbers its lines as in the file it came from. */
export function parseShell(source: string, firstLine = 1): Script {
	const parser = new Parser(source, firstLine);
	const script = parser.script(false);
	return script;
}

class Parser {
	private i = 0;
	private line: number;

	constructor(
		private readonly src: string,
		firstLine: number,
	) {
		this.line = firstLine;
	}

	private fail(message: string): never {
		throw new Error(`line ${this.line}: ${message}`);
	}

	script(inSubstitution: boolean): Script {
		const statements: Script = [];
		let commands: Command[] = [];
		let command: Command = { words: [], assignments: [] };
		let startLine = this.line;
		let comment: string | undefined;
		const finish = () => {
			if (command.words.length > 0 || command.assignments.length > 0 || command.redirect) commands.push(command);
			else if (commands.length > 0) this.fail('a pipe leads nowhere');
			if (commands.length > 0) statements.push({ kind: 'pipeline', commands, line: startLine, comment });
			commands = [];
			command = { words: [], assignments: [] };
			comment = undefined;
		};
		for (;;) {
			this.skipBlanks();
			const c = this.src[this.i];
			if (commands.length === 0 && command.words.length === 0 && command.assignments.length === 0) {
				startLine = this.line;
				const definition = this.definition();
				if (definition) {
					statements.push(definition);
					continue;
				}
			}
			if (c === undefined) {
				if (inSubstitution) this.fail('a $( is never closed');
				finish();
				return statements;
			}
			if (c === ')') {
				if (!inSubstitution) this.fail('a ) closes nothing');
				this.i++;
				finish();
				return statements;
			}
			if (c === '\n' || c === ';') {
				if (c === '\n') this.line++;
				this.i++;
				finish();
			} else if (c === '&') {
				if (this.src[this.i + 1] !== '&') this.fail('background jobs (&) are not run');
				this.i += 2;
				finish();
			} else if (c === '|') {
				if (command.words.length === 0) this.fail('a pipe with no command before it');
				this.i++;
				commands.push(command);
				command = { words: [], assignments: [] };
			} else if (c === '#') {
				const end = this.src.indexOf('\n', this.i);
				comment = this.src.slice(this.i, end === -1 ? undefined : end);
				this.i = end === -1 ? this.src.length : end;
			} else if (c === '>') {
				this.i++;
				this.skipBlanks();
				command.redirect = this.word();
			} else if (c === '<') {
				this.fail('input redirection (<) is not run');
			} else {
				const word = this.word();
				const first = word[0];
				const assignment = first?.kind === 'text' ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.text) : null;
				if (assignment?.[1] && first?.kind === 'text' && command.words.length === 0) {
					const rest = first.text.slice(assignment[0].length);
					const value: Word = rest ? [{ kind: 'text', text: rest }, ...word.slice(1)] : word.slice(1);
					command.assignments.push({ name: assignment[1], value });
				} else {
					if (command.assignments.length > 0) this.fail('an assignment before a command is not run');
					command.words.push(word);
				}
			}
		}
	}

	/** `name() { body; }` on one line: kept as text, for the runner to recognise. */
	private definition(): Statement | null {
		const match = /^([A-Za-z_][A-Za-z0-9_]*)\(\)[ \t]*\{(.*)\}[ \t]*(?=\n|$|#)/.exec(this.src.slice(this.i));
		if (!match?.[1] || match[2] === undefined) return null;
		this.i += match[0].length;
		return { kind: 'function', name: match[1], body: match[2].trim(), line: this.line };
	}

	private skipBlanks(): void {
		for (;;) {
			const c = this.src[this.i];
			if (c === ' ' || c === '\t') this.i++;
			else if (c === '\\' && this.src[this.i + 1] === '\n') {
				this.i += 2;
				this.line++;
			} else return;
		}
	}

	private word(): Word {
		const parts: Word = [];
		const text = (t: string) => {
			const last = parts.at(-1);
			if (last?.kind === 'text') last.text += t;
			else parts.push({ kind: 'text', text: t });
		};
		for (;;) {
			const c = this.src[this.i];
			if (c === undefined || ENDS_WORD.has(c)) break;
			if (c === '\\') {
				const next = this.src[this.i + 1];
				this.i += 2;
				if (next === '\n') this.line++;
				else if (next !== undefined) text(next);
			} else if (c === "'") {
				const end = this.src.indexOf("'", this.i + 1);
				if (end === -1) this.fail("a ' is never closed");
				const quoted = this.src.slice(this.i + 1, end);
				this.line += quoted.split('\n').length - 1;
				text(quoted);
				this.i = end + 1;
			} else if (c === '"') {
				this.i++;
				this.doubleQuoted(parts, text);
			} else if (c === '$') {
				this.expansion(parts, text);
			} else if (c === '`') {
				this.fail('backquotes are not run: write $(…)');
			} else {
				text(c);
				this.i++;
			}
		}
		if (parts.length === 0) this.fail('an empty word');
		return parts;
	}

	private doubleQuoted(parts: Word, text: (t: string) => void): void {
		// An empty "" is still a word.
		text('');
		for (;;) {
			const c = this.src[this.i];
			if (c === undefined) this.fail('a " is never closed');
			if (c === '"') {
				this.i++;
				return;
			}
			if (c === '\\') {
				const next = this.src[this.i + 1];
				this.i += 2;
				if (next === '\n') this.line++;
				else if (next === '$' || next === '"' || next === '\\' || next === '`') text(next);
				else text(`\\${next ?? ''}`);
			} else if (c === '$') {
				this.expansion(parts, text);
			} else if (c === '`') {
				this.fail('backquotes are not run: write $(…)');
			} else {
				if (c === '\n') this.line++;
				text(c);
				this.i++;
			}
		}
	}

	private expansion(parts: Word, text: (t: string) => void): void {
		const next = this.src[this.i + 1];
		if (next === '(') {
			this.i += 2;
			parts.push({ kind: 'subst', script: this.script(true) });
		} else if (next === '{') {
			const close = this.src.indexOf('}', this.i);
			if (close === -1) this.fail('a ${ is never closed');
			const inner = this.src.slice(this.i + 2, close);
			const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:#(.+))?$/.exec(inner);
			if (!match?.[1]) this.fail(`\${${inner}} is not run: only \${NAME} and \${NAME#pattern}`);
			parts.push(
				match[2] === undefined ? { kind: 'var', name: match[1] } : { kind: 'var', name: match[1], strip: match[2] },
			);
			this.i = close + 1;
		} else {
			const name = NAME.exec(this.src.slice(this.i + 1))?.[0];
			if (name) {
				parts.push({ kind: 'var', name });
				this.i += 1 + name.length;
			} else {
				text('$');
				this.i++;
			}
		}
	}
}
