import { freshStorage } from './fresh-storage';

// Runs before each test file: the file starts from empty storage (test/fresh-storage.ts). First a moment for
// the previous file's last Queue batches (a 0.1 s window in tests) to finish: a consumer still running after
// the reset would write its rows into this file's storage.
await new Promise((resolve) => setTimeout(resolve, 250));
await freshStorage();
