// Types for chromium.mjs, so the TypeScript browser-test harness can call it.
import type { Browser } from 'playwright-core';

export function launchChromium(): Promise<Browser>;
