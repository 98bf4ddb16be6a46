// `npm test`: builds the widget and the console, then runs the two Vitest projects side by side, each in a
// Vitest process of its own. In one process Vitest runs a project whose files go one at a time (`browser`:
// one `wrangler dev`, one Chromium) only after every other project has finished, so the browser's waits
// (a page loading, a socket frame) never overlapped the Workers runtime's work: about a minute and a half of
// idle cores on a 2-core machine. The browser files are split in two shards (`--shard`), each a process with
// its own `wrangler dev` and Chromium: a browser test mostly waits for a page or a frame, so two of them
// overlap where one left the cores idle (BROWSER_SHARDS=1 runs them in one). `workers` prints as it goes;
// each browser shard prints its report once it is done, so they never interleave. With arguments
// (`npm test -- test/foo.test.ts`), one plain `vitest run` with them.
import { spawn, spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const vitest = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname;
const args = process.argv.slice(2);

const built = spawnSync(process.execPath, [new URL('build.mjs', import.meta.url).pathname, '--quiet'], {
	cwd: root,
	stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);

if (args.length > 0) {
	const run = spawnSync(process.execPath, [vitest, 'run', ...args], { cwd: root, stdio: 'inherit' });
	process.exit(run.status ?? 1);
}

/**
 * Runs one project (or one shard of it); `buffered` keeps its output until it ends. Resolves with its exit code
 * and seconds.
 */
function runProject(name, buffered, shard) {
	const started = Date.now();
	const label = shard ? `${name} ${shard}` : name;
	const child = spawn(process.execPath, [vitest, 'run', '--project', name, ...(shard ? [`--shard=${shard}`] : [])], {
		cwd: root,
		stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
		env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
	});
	const output = [];
	if (buffered) {
		child.stdout.on('data', (chunk) => output.push(chunk));
		child.stderr.on('data', (chunk) => output.push(chunk));
	}
	return new Promise((resolve) => {
		child.on('close', (code, signal) => {
			if (buffered) {
				process.stdout.write(`\n── project ${label} ──\n`);
				process.stdout.write(Buffer.concat(output));
			}
			resolve({ name: label, code: code ?? (signal ? 1 : 0), seconds: Math.round((Date.now() - started) / 1000) });
		});
	});
}

const shards = Math.max(1, Number.parseInt(process.env.BROWSER_SHARDS ?? '2', 10) || 1);
const browser = Array.from({ length: shards }, (_, i) =>
	runProject('browser', true, shards > 1 ? `${i + 1}/${shards}` : undefined),
);
const results = await Promise.all([runProject('workers', false), ...browser]);
console.log(`\n${results.map((r) => `${r.name}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${r.seconds} s`).join(', ')}`);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
