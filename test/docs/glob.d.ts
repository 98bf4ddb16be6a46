// Vite's import.meta.glob, which the test runner resolves: every doc's text, so a new doc is checked unasked;
// without options, the matching files' paths (each a lazy import, never called).
interface ImportMeta {
	glob<T>(pattern: string | string[], options: { query: '?raw'; import: 'default'; eager: true }): Record<string, T>;
	glob(pattern: string | string[]): Record<string, () => Promise<unknown>>;
}
