// `npm run build`: the Worker's static assets in dist/public, from an empty folder: the widget (widget/), then
// the operator console (console/, into dist/public/console). With `--watch` (what `npm run dev` runs after a
// build) both are rebuilt on every change instead; a widget rebuild never empties dist/public, so neither
// removes the other's files. Last, /docs's script: the standalone bundle of @scalar/api-reference (src/routes/platform/docs.ts).
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const bin = new URL('../node_modules/.bin/vite', import.meta.url).pathname;
const configs = ['widget/vite.config.ts', 'console/vite.config.ts'];
const quiet = process.argv.includes('--quiet') ? ['--logLevel', 'warn'] : [];

/**
 * Copies the API reference's script into dist/public/docs/scalar.js: the package's `browser` entry, one
 * self-contained file, so /docs loads nothing from a CDN.
 */
function copyApiReference() {
	const pkg = new URL('../node_modules/@scalar/api-reference/', import.meta.url);
	const { browser } = JSON.parse(readFileSync(new URL('package.json', pkg), 'utf8'));
	const docs = new URL('../dist/public/docs/', import.meta.url);
	mkdirSync(docs, { recursive: true });
	copyFileSync(new URL(browser, pkg), new URL('scalar.js', docs));
}

if (process.argv.includes('--watch')) {
	copyApiReference();
	const watchers = configs.map((config) =>
		spawn(bin, ['build', '--config', config, '--watch', ...quiet], { stdio: 'inherit' }),
	);
	for (const signal of ['SIGINT', 'SIGTERM']) {
		process.on(signal, () => {
			for (const watcher of watchers) watcher.kill(signal);
			process.exit(0);
		});
	}
} else {
	rmSync(new URL('../dist/public', import.meta.url), { recursive: true, force: true });
	for (const config of configs) {
		if (spawnSync(bin, ['build', '--config', config, ...quiet], { stdio: 'inherit' }).status !== 0) process.exit(1);
	}
	copyApiReference();
}
