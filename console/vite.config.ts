/**
 * Builds the operator console (a single-page app, Preact with React's API through preact/compat) into
 * dist/public/console, beside the widget's files: served as static assets under /console, with the Worker
 * answering every other /console path with index.html (src/routes/console.ts) for deep links.
 * File names carry a content hash under /console/assets/, cached for a year (widget/public/_headers).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
	root,
	base: '/console/',
	publicDir: false,
	resolve: {
		alias: {
			react: 'preact/compat',
			'react-dom': 'preact/compat',
			'react/jsx-runtime': 'preact/jsx-runtime',
		},
	},
	oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
	build: {
		outDir: '../dist/public/console',
		emptyOutDir: true,
		target: 'es2022',
		reportCompressedSize: true,
		assetsDir: 'assets',
		rolldownOptions: {
			// TanStack Query marks its files "use client" (for React Server Components): meaningless in a bundle.
			onLog(level, log, handler) {
				if (log.code !== 'MODULE_LEVEL_DIRECTIVE') handler(level, log);
			},
		},
	},
});
