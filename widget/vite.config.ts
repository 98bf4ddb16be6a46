/**
 * Builds the widget into dist/public (the Worker's static assets, with the pages in widget/public):
 * - `widget.js`, the loader the snippet fetches: a stable name, so it is cached briefly (see public/_headers);
 *   it holds only what runs before the visitor opens the chat.
 * - `widget-assets/chat-[hash].js`, the chat itself, imported on open: a versioned name, cached for a year.
 * Both are ES modules: the snippet loads the loader with type=module, so nothing leaks into the page's scope.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Vite wraps every dynamic import in its preload helper, even with `modulePreload: false` (vitejs/vite#18551),
 * and that helper (preloading a chunk's CSS and imports, about 0.6 KiB gzip) went into widget.js, the file
 * every page loads. The chat has no CSS file (its styles are a string) and preloads nothing, so the helper
 * here just runs the import; a failed import is the loader's to handle (widget.ts `importChat`).
 */
const noPreloadHelper: Plugin = {
	name: 'parley-widget-no-preload-helper',
	enforce: 'pre',
	load(id) {
		if (id === '\0vite/preload-helper.js') return 'export const __vitePreload = (load) => load();';
	},
};

export default defineConfig({
	root,
	plugins: [noPreloadHelper],
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
