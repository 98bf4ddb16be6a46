/**
 * The shell blocks of a Markdown document: fenced ```sh (or bash, shell, console) blocks, indented or not.
 * A block whose info string says `no-run: <reason>` (```` ```sh no-run: serves until Ctrl-C ````) is shown,
 * not run; GitHub still colours it by its first word.
 */

export interface ShellBlock {
	file: string;
	/** The line of the block's first command, counted from 1. */
	line: number;
	text: string;
	/** Why the block is not run, when it says so. */
	noRun?: string;
}

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console']);

export function shellBlocks(file: string, markdown: string): ShellBlock[] {
	const lines = markdown.split('\n');
	const blocks: ShellBlock[] = [];
	for (let i = 0; i < lines.length; i++) {
		const open = /^(\s*)```(\S*)[ \t]*(.*)$/.exec(lines[i] ?? '');
		if (!open) continue;
		const [, indent = '', language = '', info = ''] = open;
		const close = lines.findIndex((line, j) => j > i && /^\s*```\s*$/.test(line));
		if (close === -1) throw new Error(`${file}:${i + 1}: a code block is never closed`);
		if (SHELL_LANGUAGES.has(language)) {
			const text = lines
				.slice(i + 1, close)
				.map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
				.join('\n');
			const noRun = /^no-run:\s*(.*\S)/.exec(info)?.[1];
			if (info && noRun === undefined) throw new Error(`${file}:${i + 1}: unknown info string "${info}"`);
			blocks.push({ file, line: i + 2, text, ...(noRun === undefined ? {} : { noRun }) });
		}
		i = close;
	}
	return blocks;
}
