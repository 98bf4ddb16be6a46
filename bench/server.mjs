// Builds the widget, then starts and stops `wrangler dev` for the benchmark: on 127.0.0.1, a free port, a given
// persist folder.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, appendFileSync, constants, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const WRANGLER = new URL('../node_modules/.bin/wrangler', import.meta.url).pathname;
const VITE = new URL('../node_modules/.bin/vite', import.meta.url).pathname;
const OUTPUT_TAIL_CHARS = 8_000;
/**
 * `wrangler dev` records a trace of every invocation by default (the Worker's request, each Durable Object
 * call, each D1 statement, each Queue send) into a local trace store, for its local explorer: a SQLite write
 * and a tail-worker call per invocation, which measured here doubled the CPU a message costs and taxed each
 * extra hop far more than production does (Workers Logs are collected outside the request). The benchmark
 * turns it off, for /health and every scenario alike; `PARLEY_BENCH_LOCAL_OBSERVABILITY=true` keeps it on.
 */
const LOCAL_OBSERVABILITY = process.env.PARLEY_BENCH_LOCAL_OBSERVABILITY === 'true' ? 'true' : 'false';

/**
 * Where the run keeps its state (`--persist-to`: D1's databases and one SQLite file per Durable Object): a RAM
 * disk when the machine has one (Linux's /dev/shm), or `PARLEY_BENCH_STATE_DIR`. Locally each new object is a
 * new file and each of its commits a write to it; on this VM's virtual disk that I/O made a first message into
 * a never-used room cost 28 to 43 ms of a closed loop's time per request from one run to the next, against 11 to
 * 17 ms in memory, with /health unchanged: the disk's noise, not Parley's work, and nothing production has
 * (an object's storage there is not a file on the Worker's machine). The report says which it was.
 */
export function stateRoot() {
	const chosen = process.env.PARLEY_BENCH_STATE_DIR;
	if (chosen) return { dir: chosen, memory: false };
	try {
		accessSync('/dev/shm', constants.W_OK);
		return { dir: '/dev/shm', memory: true };
	} catch {
		return { dir: os.tmpdir(), memory: false };
	}
}

/** What each build must leave in dist/public, which `wrangler dev` serves: the widget and console sections load them. */
const BUILDS = [
	['widget/vite.config.ts', 'widget.js'],
	['console/vite.config.ts', 'console/index.html'],
];

/** Builds widget.js and the chat, then the operator console, into dist/public (as `npm run build` does). */
export function buildAssets(root) {
	for (const [config, output] of BUILDS) {
		const build = spawnSync(VITE, ['build', '--config', config, '--logLevel', 'warn'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		if (build.status !== 0) {
			throw new Error(`the build of ${config} failed: ${build.error ?? ''}\n${build.stdout}\n${build.stderr}`);
		}
		if (!existsSync(path.join(root, 'dist', 'public', output))) {
			throw new Error(`the build of ${config} wrote no dist/public/${output}`);
		}
	}
}

/** A TCP port that is free on 127.0.0.1 right now. */
export async function freePort() {
	const server = createServer();
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const { port } = server.address();
	server.close();
	await once(server, 'close');
	return port;
}

/**
 * Spawns `wrangler dev` in its own process group (so that stopping it also stops workerd) and waits until
 * GET /health answers 200. Returns `{ baseUrl, stop, output }`; `stop` is safe to call more than once.
 * `config` names another Worker's wrangler file (the project's by default); `env` adds to wrangler's
 * environment (the e-mail section's private dev registry, WRANGLER_REGISTRY_PATH).
 */
export async function startWranglerDev({ persistTo, vars = {}, readyTimeoutMs = 60_000, config, env = {} }) {
	const port = await freePort();
	const inspectorPort = await freePort();
	const args = [
		'dev',
		'--port',
		String(port),
		'--ip',
		'127.0.0.1',
		'--inspector-port',
		String(inspectorPort),
		'--persist-to',
		persistTo,
		'--log-level',
		'warn',
		'--show-interactive-dev-session=false',
		...(config ? ['--config', config] : []),
		...Object.entries(vars).flatMap(([key, value]) => ['--var', `${key}:${value}`]),
	];
	const child = spawn(WRANGLER, args, {
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: {
			...process.env,
			...env,
			WRANGLER_SEND_METRICS: 'false',
			NO_COLOR: '1',
			X_LOCAL_OBSERVABILITY: LOCAL_OBSERVABILITY,
		},
	});
	let output = '';
	const keep = (chunk) => {
		output = (output + chunk).slice(-OUTPUT_TAIL_CHARS);
		// BENCH_WRANGLER_LOG=<file> keeps all of wrangler's output, for a run being looked into.
		if (process.env.BENCH_WRANGLER_LOG) appendFileSync(process.env.BENCH_WRANGLER_LOG, chunk);
	};
	child.stdout.setEncoding('utf8').on('data', keep);
	child.stderr.setEncoding('utf8').on('data', keep);
	let exited = false;
	const exit = once(child, 'exit').then(() => {
		exited = true;
	});

	async function stop() {
		if (exited) return;
		const signalGroup = (signal) => {
			try {
				process.kill(-child.pid, signal);
			} catch {
				// The group is already gone.
			}
		};
		signalGroup('SIGTERM');
		const stopped = await Promise.race([exit.then(() => true), sleep(5_000).then(() => false)]);
		// wrangler may leave workerd behind when it exits on SIGTERM: always sweep the group.
		signalGroup('SIGKILL');
		if (!stopped) await Promise.race([exit, sleep(2_000)]);
	}

	const baseUrl = `http://127.0.0.1:${port}`;
	const deadline = Date.now() + readyTimeoutMs;
	try {
		while (true) {
			if (exited) throw new Error(`wrangler dev exited before it was ready:\n${output}`);
			if (Date.now() > deadline) {
				throw new Error(`wrangler dev did not answer GET /health within ${readyTimeoutMs / 1000} s:\n${output}`);
			}
			try {
				const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
				await response.arrayBuffer();
				if (response.status === 200) break;
			} catch {
				// Not listening yet.
			}
			await sleep(250);
		}
	} catch (error) {
		await stop();
		throw error;
	}
	return {
		baseUrl,
		inspectorPort,
		pid: child.pid,
		stop,
		output: () => output,
		args,
		localObservability: LOCAL_OBSERVABILITY === 'true',
	};
}
