// `npm run build`: the Worker's static assets in dist/public, from an empty folder: the widget (widget/), then
// the operator console (console/, into dist/public/console). With `--watch` (what `npm run dev` runs after a
// build) both are rebuilt on every change instead; a widget rebuild never empties dist/public, so neither
// removes the other's files.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const bin = new URL('../node_modules/.bin/vite', import.meta.url).pathname;
const configs = ['widget/vite.config.ts', 'console/vite.config.ts'];
const quiet = process.argv.includes('--quiet') ? ['--logLevel', 'warn'] : [];

if (process.argv.includes('--watch')) {
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
}
