// The Chromium the browser tests and `npm run bench` drive (playwright-core, never a browser Playwright
// downloads: only the npm registry and Debian's packages are reachable on our machines). Found in this order:
// the CHROMIUM_PATH variable, a Chromium or Chrome installed on the system, then the one shipped inside the
// npm package @sparticuz/chromium (a devDependency, so a fresh clone needs nothing else).
import { accessSync, constants } from 'node:fs';
import { chromium } from 'playwright-core';

const ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
	'--no-first-run',
	'--disable-sync',
];

const SYSTEM_BROWSERS = [
	'/usr/bin/chromium',
	'/usr/bin/chromium-browser',
	'/usr/bin/google-chrome',
	'/usr/bin/google-chrome-stable',
	'/Applications/Chromium.app/Contents/MacOS/Chromium',
	'/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
	'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
];

/** Whether `path` is a file this process may run (the engines' lookup uses it too, scripts/engines.mjs). */
export function isExecutable(path) {
	try {
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/**
 * The browser's path; throws with what to do when there is none. The packaged browser unpacks itself on its
 * first call: `npm test` calls this once before it starts the browser shards, which otherwise raced to unpack it
 * on a fresh machine (one launched the file while another was still writing it: spawn ETXTBSY).
 */
export async function findChromium() {
	const chosen = process.env.CHROMIUM_PATH;
	if (chosen) {
		if (!isExecutable(chosen)) throw new Error(`CHROMIUM_PATH is set to ${chosen}, which is not an executable file.`);
		return chosen;
	}
	const system = SYSTEM_BROWSERS.find(isExecutable);
	if (system) return system;
	// Only on Linux x64: the package's binary is built for it (it unpacks itself into the temp folder once).
	if (process.platform === 'linux' && process.arch === 'x64') {
		const packaged = await import('@sparticuz/chromium').catch(() => undefined);
		if (packaged) return packaged.default.executablePath();
	}
	throw new Error(
		'No Chromium found for the browser tests. Set CHROMIUM_PATH to a Chromium or Chrome binary, install one ' +
			'(Debian: apt-get install -y chromium; macOS: Google Chrome), or run `npm install` on Linux x64, which ' +
			'brings @sparticuz/chromium.',
	);
}

/** Launches Chromium headless, with nothing running in the background that would skew timings. */
export async function launchChromium() {
	return chromium.launch({ executablePath: await findChromium(), args: ARGS });
}
