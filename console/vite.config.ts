/**
 * Builds the operator console (a single-page app, Preact with React's API through preact/compat) into
 * dist/public/console, beside the widget's files: served as static assets under /console, with the Worker
 * answering every other /console path with index.html (src/routes/platform/console.ts) for deep links.
 * File names carry a content hash under /console/assets/, cached for a year (widget/public/_headers).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The schemas the builders draw their forms from, as the API's own document states them. */
const STEP_SCHEMAS = [
	'BotDefinition',
	'ScenarioDefinition',
	'BotTrigger',
	'BotChanges',
	'ScenarioTrigger',
	'ScenarioChanges',
	'Condition',
	'ConditionLeaf',
	'IntegrationPreset',
];

/**
 * `virtual:step-schemas`: the bot and scenario definitions' JSON Schemas (and the ones they refer to), cut
 * from docs/openapi.json at build time. The builders' forms come from them, so every step type and field the
 * API accepts has its form, with the API's own descriptions, and a new field needs no console change.
 */
function stepSchemas(): Plugin {
	const id = 'virtual:step-schemas';
	return {
		name: 'parley-step-schemas',
		resolveId: (source) => (source === id ? `\0${id}` : undefined),
		load(loaded) {
			if (loaded !== `\0${id}`) return undefined;
			const path = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
			this.addWatchFile(path);
			const all = JSON.parse(readFileSync(path, 'utf8')).components.schemas;
			const picked = Object.fromEntries(STEP_SCHEMAS.map((name) => [name, all[name]]));
			return `export default ${JSON.stringify(picked)};`;
		},
	};
}

export default defineConfig({
	root,
	base: '/console/',
	// public/sw.js: the service worker, copied as it is to /console/sw.js (its scope is the console).
	publicDir: 'public',
	plugins: [stepSchemas()],
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
			output: {
				// The inbox's first load in one script. Left to itself, rolldown moved the modules the entry shares
				// with the lazy pages (Preact, TanStack Query, the API client, the words: 131 KB) into a common chunk
				// that its merge pass did not fold back into the entry, so the first load fetched three scripts.
				// `$initial` is every module the entry reaches statically: one chunk, the entry's, which the lazy
				// pages import from. The bundler's runtime (1 KB) stays a file of its own: rolldown offers it to no group.
				codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] },
			},
		},
	},
});
