// Types for chromium.mjs, so the TypeScript browser-test harness can call it.
import type { Browser } from 'playwright-core';

export function launchChromium(): Promise<Browser>;
/** Whether `path` is a file this process may run. */
export function isExecutable(path: string): boolean;
