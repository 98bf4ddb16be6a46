import { beforeAll } from 'vitest';
import { freshStorage } from './fresh-storage';

/** test/unit/: pure functions of the engines and the model, which read and write no storage. */
const PURE = /\/test\/unit\//;

// Runs before each test file: the file starts from empty storage (test/fresh-storage.ts). First a moment for
// the previous file's last Queue batches (a 0.1 s window in tests) to finish: a consumer still running after
// the reset would write its rows into this file's storage. A unit test file skips both: a third of the files,
// which paid about half a second each for storage they never touch (the next file that uses storage empties it).
// biome-ignore lint/correctness/noEmptyPattern: Vitest reads a hook's first parameter as its fixtures and requires a pattern; the file is the second.
beforeAll(async ({}, suite) => {
	if (PURE.test(suite.file.filepath)) return;
	await new Promise((resolve) => setTimeout(resolve, 250));
	await freshStorage();
}, 60_000);
