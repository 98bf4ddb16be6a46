/**
 * Builds the widget into dist/public (the Worker's static assets, with the pages in widget/public):
 * - `widget.js`, the loader the snippet fetches: a stable name, so it is cached briefly (see public/_headers);
 *   it holds only what runs before the visitor opens the chat.
 * - `widget-assets/chat-[hash].js`, the chat itself, imported on open: a versioned name, cached for a year.
 * - `widget-assets/launcher-[hash].css` and `panel-[hash].css`, the widget's rules as files, for browsers
 *   without constructable stylesheets (see STYLESHEETS).
 * Both scripts are ES modules: the snippet imports the loader, or the page loads it with type=module, so nothing
 * leaks into the page's scope.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { PANEL_STYLE } from './src/chat/styles.ts';
import { LAUNCHER_STYLE } from './src/launcher-styles.ts';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The widget's rules as files, for browsers whose shadow roots cannot adopt constructed stylesheets
 * (src/sheets.ts): the launcher links its file from the widget's own origin, which `style-src <widget origin>`
 * allows where a strict Content-Security-Policy refuses every inline style, and the chat links the panel's
 * when it mounts, so a first visit still loads only the launcher's before opening. Named by their content,
 * like the chat file; the scripts learn the names at build time (`__LAUNCHER_STYLESHEET__`,
 * `__PANEL_STYLESHEET__`). Written from the modules whose rules are adopted elsewhere, as the build starts
 * (`npm run dev`'s rebuilds keep those first versions of the files).
 */
const named = (name: string, css: string) =>
	`widget-assets/${name}-${createHash('sha256').update(css).digest('base64url').slice(0, 8)}.css`;
const STYLESHEETS = {
	[named('launcher', LAUNCHER_STYLE)]: LAUNCHER_STYLE,
	[named('panel', PANEL_STYLE)]: PANEL_STYLE,
};
const [LAUNCHER_STYLESHEET, PANEL_STYLESHEET] = Object.keys(STYLESHEETS);

const stylesheetFiles: Plugin = {
	name: 'parley-widget-stylesheets',
	generateBundle() {
		for (const [fileName, source] of Object.entries(STYLESHEETS)) this.emitFile({ type: 'asset', fileName, source });
	},
};

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
	plugins: [noPreloadHelper, stylesheetFiles],
	define: {
		__LAUNCHER_STYLESHEET__: JSON.stringify(LAUNCHER_STYLESHEET),
		__PANEL_STYLESHEET__: JSON.stringify(PANEL_STYLESHEET),
	},
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
