// The browser engines the widget's journeys run in (test/browser/journeys.ts): Chromium always (scripts/
// chromium.mjs finds one, from npm if need be), WebKit and Firefox where the machine has them. Nothing is ever
// downloaded at test time: WebKit is WebKitGTK's WebDriver (Debian: webkit2gtk-driver) in a virtual display
// (xvfb), Firefox the installed Firefox (Debian: firefox-esr) over WebDriver BiDi. `.ci/run` installs both.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { isExecutable } from './chromium.mjs';

const WEBKIT_DRIVERS = ['/usr/bin/WebKitWebDriver', '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/WebKitWebDriver'];
const FIREFOXES = ['/usr/bin/firefox-esr', '/usr/bin/firefox', '/Applications/Firefox.app/Contents/MacOS/firefox'];
const XVFB_RUN = '/usr/bin/xvfb-run';

/** How to install what is missing, for the line that says an engine was skipped. */
export const INSTALL_HINT = {
	webkit: 'apt-get install -y webkit2gtk-driver xvfb (or set WEBKIT_DRIVER_PATH)',
	firefox: 'apt-get install -y firefox-esr (or set FIREFOX_PATH)',
};

function firstExecutable(chosen, candidates) {
	if (chosen) return isExecutable(chosen) ? chosen : undefined;
	return candidates.find(isExecutable);
}

/**
 * WebKit's driver, and how it gets a display: a desktop's own (DISPLAY set) or a virtual one from xvfb-run.
 * Undefined, with the reason, when either is missing.
 */
export function findWebKit() {
	const driver = firstExecutable(process.env.WEBKIT_DRIVER_PATH, WEBKIT_DRIVERS);
	if (!driver) return { reason: `no WebKitWebDriver: ${INSTALL_HINT.webkit}` };
	if (!process.env.DISPLAY && !isExecutable(XVFB_RUN))
		return { reason: `no display and no xvfb-run: ${INSTALL_HINT.webkit}` };
	return { driver };
}

/** The Firefox binary, or the reason there is none. */
export function findFirefox() {
	const binary = firstExecutable(process.env.FIREFOX_PATH, FIREFOXES);
	return binary ? { binary } : { reason: `no Firefox: ${INSTALL_HINT.firefox}` };
}

/**
 * The engines as `npm test` reports them: which run (Firefox with its version; WebKitWebDriver has no version
 * option, so its path) and which are skipped and why.
 */
export function engineReport() {
	const webkit = findWebKit();
	const firefox = findFirefox();
	const version = (binary, args) => {
		const run = spawnSync(binary, args, { encoding: 'utf8', timeout: 10_000 });
		return (run.stdout || '').trim().split('\n')[0] ?? '';
	};
	return [
		{ engine: 'Chromium', runs: true, detail: 'playwright-core' },
		webkit.driver
			? { engine: 'WebKit', runs: true, detail: webkit.driver }
			: { engine: 'WebKit', runs: false, detail: webkit.reason },
		firefox.binary
			? { engine: 'Firefox', runs: true, detail: version(firefox.binary, ['--version']) }
			: { engine: 'Firefox', runs: false, detail: firefox.reason },
	];
}

/** A port nothing listens on right now (the OS picks it); the browser tests' `wrangler dev` takes one too. */
export function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(address)));
		});
	});
}

/**
 * Starts WebKitWebDriver on a free port (in a virtual display unless there is a real one) and resolves once it
 * accepts sessions: `{ url, stop }`. It runs in a process group of its own, so `stop` also ends Xvfb and the
 * browsers it started.
 */
export async function startWebKitDriver() {
	const { driver, reason } = findWebKit();
	if (!driver) throw new Error(reason);
	const port = await freePort();
	const command = process.env.DISPLAY
		? [driver, `--port=${port}`]
		: [XVFB_RUN, '-a', '-s', '-screen 0 1280x1024x24', driver, `--port=${port}`];
	const child = spawn(command[0], command.slice(1), { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
	let output = '';
	child.stderr.on('data', (chunk) => {
		output = (output + chunk.toString()).slice(-4000);
	});
	const kill = (signal) => {
		try {
			process.kill(-child.pid, signal);
		} catch {
			// Already gone.
		}
	};
	const killOnExit = () => kill('SIGKILL');
	process.once('exit', killOnExit);
	const stop = async () => {
		process.off('exit', killOnExit);
		if (child.exitCode !== null || child.signalCode !== null) return;
		const exited = new Promise((resolve) => child.once('exit', resolve));
		kill('SIGTERM');
		const timer = setTimeout(() => kill('SIGKILL'), 5_000);
		await exited;
		clearTimeout(timer);
	};
	const url = `http://127.0.0.1:${port}`;
	const deadline = Date.now() + 30_000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited (${child.exitCode}):\n${output}`);
		try {
			const status = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2_000) });
			if (status.ok && (await status.json()).value?.ready) return { url, stop };
		} catch {
			// Not listening yet.
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	await stop();
	throw new Error(`WebKitWebDriver did not answer on ${url} within 30 s:\n${output}`);
}
