// Types for engines.mjs, so the TypeScript journeys (test/browser/journeys.ts) can call it.
/** How to install an engine that is missing. */
export const INSTALL_HINT: { webkit: string; firefox: string };
/** WebKit's WebDriver binary, or the reason the WebKit journeys are skipped. */
export function findWebKit(): { driver: string; reason?: undefined } | { driver?: undefined; reason: string };
/** The Firefox binary, or the reason the Firefox journeys are skipped. */
export function findFirefox(): { binary: string; reason?: undefined } | { binary?: undefined; reason: string };
/** Which engines run (with their version) and which are skipped (with why). */
export function engineReport(): { engine: string; runs: boolean; detail: string }[];
/** WebKitWebDriver on a free port, in a virtual display unless the machine has a real one. */
export function startWebKitDriver(): Promise<{ url: string; stop(): Promise<void> }>;
/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number>;
