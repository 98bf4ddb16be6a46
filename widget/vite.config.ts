/**
 * Builds the widget into dist/public (the Worker's static assets, with the pages in widget/public):
 * - `widget.js`, the loader the snippet fetches: a stable name, so it is cached briefly (see public/_headers);
 *   it holds only what runs before the visitor opens the chat.
 * - `widget-assets/chat-[hash].js`, the chat itself, imported on open: a versioned name, cached for a year.
 * Both are ES modules: the snippet loads the loader with type=module, so nothing leaks into the page's scope.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
	root,
	publicDir: 'public',
	build: {
		outDir: '../dist/public',
		// The console builds into dist/public/console beside it: scripts/build.mjs empties dist/public once first.
		emptyOutDir: false,
		target: 'es2022',
		modulePreload: false,
		reportCompressedSize: true,
		rolldownOptions: {
			input: { widget: 'src/loader.ts' },
			output: {
				format: 'es',
				entryFileNames: '[name].js',
				chunkFileNames: 'widget-assets/[name]-[hash].js',
			},
		},
	},
});
