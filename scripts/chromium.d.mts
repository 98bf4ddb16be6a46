// Types for chromium.mjs, so the TypeScript browser-test harness can call it.
import type { Browser } from 'playwright-core';

export interface FoundChromium {
	path: string;
	source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
}

export function findChromium(env?: Record<string, string | undefined>): Promise<FoundChromium>;
export function launchChromium(): Promise<Browser>;
