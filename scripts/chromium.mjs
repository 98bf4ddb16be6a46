// Debian's Chromium (apt package `chromium`), as the browser tests and `npm run bench` launch it. Never a
// browser Playwright downloads: only the npm registry and Debian's packages are reachable here.
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

/** Launches /usr/bin/chromium headless, with nothing running in the background that would skew timings. */
export function launchChromium() {
	return chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
}
