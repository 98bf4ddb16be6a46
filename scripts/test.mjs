// `npm test`: builds the widget and the console, then runs the two Vitest projects side by side, each in a
// Vitest process of its own. In one process Vitest runs a project whose files go one at a time (`browser`:
// one `wrangler dev`, one Chromium) only after every other project has finished, so the browser's waits
// (a page loading, a socket frame) never overlapped the Workers runtime's work: about a minute and a half of
// idle cores on a 2-core machine. The browser files are split in two shards (`--shard`), each a process with
// its own `wrangler dev` and Chromium: a browser test mostly waits for a page or a frame, so two of them
// overlap where one left the cores idle (BROWSER_SHARDS=1 runs them in one). `workers` prints as it goes;
// each browser shard prints its report once it is done, so they never interleave; what failed in any of them
// is printed again last, where the tail of a CI log shows it. With arguments
// (`npm test -- test/foo.test.ts`), one plain `vitest run` with them.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { findChromium } from './chromium.mjs';
import { engineReport } from './engines.mjs';

const root = new URL('..', import.meta.url).pathname;
const vitest = new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname;
const args = process.argv.slice(2);

const built = spawnSync(process.execPath, [new URL('build.mjs', import.meta.url).pathname, '--quiet'], {
	cwd: root,
	stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);

// The tests' state (every Durable Object's and database's SQLite file, in the Workers runtime's temporary folder
// and the browser shards' `wrangler dev --persist-to`) goes to a RAM disk where the machine has one, unless
// TMPDIR is set. On a virtual machine's disk each new object's file costs a synchronous write whose latency
// grows with whatever else writes at the time: the 2,000-contact campaign test took 22 s with its files in
// memory, 31 s on the disk of an idle machine, and 250 s on that disk while the browser shards ran beside it.
// Production has no such files; what the tests assert is the same either way.
const RAM_DISK = '/dev/shm';
let stateDir;
if (!process.env.TMPDIR && isWritable(RAM_DISK)) {
	stateDir = mkdtempSync(join(RAM_DISK, 'parley-test-'));
	process.env.TMPDIR = stateDir;
	process.on('exit', () => rmSync(stateDir, { recursive: true, force: true }));
}

function isWritable(path) {
	try {
		accessSync(path, constants.W_OK);
		return true;
	} catch {
		return false;
	}
}

// Found (and the packaged one unpacked) once, before any Vitest process may launch it: see findChromium. A
// machine with no browser at all learns it from the browser tests, as before.
await findChromium().catch(() => undefined);

if (args.length > 0) {
	const run = spawnSync(process.execPath, [vitest, 'run', ...args], { cwd: root, stdio: 'inherit' });
	process.exit(run.status ?? 1);
}

/**
 * Runs one project (or one shard of it), with the projects in `also` in the same Vitest process; `buffered` keeps its output until it ends, otherwise it prints as it
 * goes. Either way the output is kept, so a failed project's report can be printed again at the very end,
 * where a CI log's tail shows it. Resolves with its exit code, seconds and output.
 */
function runProject(name, buffered, shard, also = []) {
	const started = Date.now();
	const label = shard ? `${name} ${shard}` : name;
	const projects = [name, ...also].flatMap((project) => ['--project', project]);
	const child = spawn(process.execPath, [vitest, 'run', ...projects, ...(shard ? [`--shard=${shard}`] : [])], {
		cwd: root,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
	});
	const output = [];
	const keep = (chunk) => {
		output.push(chunk);
		if (!buffered) process.stdout.write(chunk);
	};
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	return new Promise((resolve) => {
		child.on('close', (code, signal) => {
			const text = Buffer.concat(output).toString('utf8');
			if (buffered) process.stdout.write(`\n── project ${label} ──\n${text}`);
			resolve({
				name: label,
				code: code ?? (signal ? 1 : 0),
				seconds: Math.round((Date.now() - started) / 1000),
				text,
			});
		});
	});
}

/** The part of a Vitest report that names what failed: from its first "Failed" banner to the end. */
function failureReport(text) {
	// Colours (escape sequences) may sit anywhere in the banner: the report is searched and printed without them.
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are what is removed.
	const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
	const at = plain.search(/⎯+ Failed (Tests|Suites)/);
	return at >= 0 ? plain.slice(at) : plain.split('\n').slice(-60).join('\n');
}

const shards = Math.max(1, Number.parseInt(process.env.BROWSER_SHARDS ?? '2', 10) || 1);
const browser = Array.from({ length: shards }, (_, i) =>
	runProject('browser', true, shards > 1 ? `${i + 1}/${shards}` : undefined),
);
// `workers-shards` (the same runtime with two D1 shards, one file) goes with `workers`, in its process.
const results = await Promise.all([runProject('workers', false, undefined, ['workers-shards']), ...browser]);
for (const failed of results.filter((r) => r.code !== 0)) {
	process.stdout.write(`\n── what failed in ${failed.name} ──\n${failureReport(failed.text)}\n`);
}
console.log(`\n${results.map((r) => `${r.name}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${r.seconds} s`).join(', ')}`);
console.log(
	`test state: ${stateDir ? `${stateDir} (memory)` : `${process.env.TMPDIR ?? 'the system temporary folder'}`}`,
);
// Which engines ran the widget's journeys (test/browser/journeys.ts), and why any did not.
console.log(
	`browser engines: ${engineReport()
		.map((e) => `${e.engine} ${e.runs ? `ran (${e.detail})` : `SKIPPED (${e.detail})`}`)
		.join('; ')}`,
);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
