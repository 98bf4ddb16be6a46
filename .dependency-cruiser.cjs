/**
 * Parley's layers, written down and enforced (`npm run lint`, so `.ci/run` too). From the bottom:
 *
 *   src/lib            generic helpers: ids, errors, cursors, the outbound-request guard
 *   src/model          what things are: actors, messages, events, business hours (pure)
 *   src/protocol       the wire between the server and its clients (pure)
 *   src/engines        step machines, conditions, templates and the automation's definitions (pure)
 *   src/db             the D1 schema (pure) and the drizzle client
 *   src/events         committing events with their writes, the outbox, delivery
 *   src/auth           tokens, sessions, permissions
 *   src/domain         one folder per feature: what the API, bots, scenarios and rules do
 *   src/http           the Hono plumbing every route shares: errors, OpenAPI, request logs
 *   src/routes, src/queue, durable-objects, src/index.ts   the entry points
 *
 * A layer imports only layers below it (or itself); nothing imports in a circle; the widget and the console
 * take only `model` and `protocol` from the server. See docs/ARCHITECTURE.md.
 */
const PURE =
	'^src/(lib/(canonical-json|csv|cursor|error-status|errors|etag|expected-version|group-by|ids|image-size|parley-hops|public-address|schema-rules|url-schemas)|model|protocol|engines)(/|[.]ts$)';

/** Each layer, and the folders it may not import: everything above it. */
const layers = [
	[
		'lib',
		'^src/lib/',
		'^src/(model|protocol|engines|db|app-env|events|auth|domain|http|routes|queue|index)|^durable-objects/',
	],
	[
		'model',
		'^src/model/',
		'^src/(protocol|engines|db|app-env|events|auth|domain|http|routes|queue|index)|^durable-objects/',
	],
	[
		'protocol',
		'^src/protocol/',
		'^src/(engines|db|app-env|events|auth|domain|http|routes|queue|index)|^durable-objects/',
	],
	[
		'db-schema',
		'^src/db/schema/',
		'^src/(db/client|db/scoped|app-env|events|auth|domain|http|routes|queue|index)|^durable-objects/',
	],
	['db', '^src/db/', '^src/(app-env|events|auth|domain|http|routes|queue|index)|^durable-objects/'],
	['app-env', '^src/app-env[.]ts$', '^src/(events|auth|domain|http|routes|queue|index)|^durable-objects/'],
	['events', '^src/events/', '^src/(auth|domain|http|routes|queue|index)|^durable-objects/'],
	['auth', '^src/auth/', '^src/(domain|http|routes|queue|index)|^durable-objects/'],
	['domain', '^src/domain/', '^src/(http|routes|queue|index)'],
	['http', '^src/http/', '^src/(routes|queue|index)|^durable-objects/'],
	['entry', '^src/(routes|queue)/', '^src/index|^durable-objects/'],
	['durable-objects', '^durable-objects/', '^src/(routes|queue|index)'],
];

module.exports = {
	forbidden: [
		{
			name: 'no-circular',
			comment: 'A circle of imports has no bottom: split the shared piece into a module both import.',
			severity: 'error',
			from: {},
			to: { circular: true },
		},
		...layers.map(([layer, from, to]) => ({
			name: `layer-${layer}`,
			comment: 'A layer imports only the layers below it.',
			severity: 'error',
			from: { path: from },
			to: { path: to },
		})),
		{
			name: 'pure-engines',
			comment:
				'Engines and the automation definitions are pure: a definition, a state and an event in, a state and effects out. They import only other pure modules.',
			severity: 'error',
			from: { path: '^src/(engines|model|protocol|db/schema)/' },
			to: { path: '^src/', pathNot: `${PURE}|^src/db/schema/` },
		},
		{
			name: 'domain-reaches-objects-through-callers',
			comment: 'The domain calls Durable Objects only through src/domain/objects.ts.',
			severity: 'error',
			from: { path: '^src/domain/', pathNot: '^src/domain/objects[.]ts$' },
			to: { path: '^durable-objects/' },
		},
		{
			name: 'clients-take-model-and-protocol',
			comment: 'The widget and the console run in browsers: from the server they take only model and protocol.',
			severity: 'error',
			from: { path: '^(widget|console)/' },
			to: { path: '^(src|durable-objects)/', pathNot: '^src/(model|protocol)/' },
		},
	],
	options: {
		doNotFollow: { path: 'node_modules' },
		exclude: {
			path: '(^|/)(node_modules|dist)/|^src/worker-configuration[.]d[.]ts$|^console/src/api/schema[.]d[.]ts$',
		},
		// TypeScript 7 has no compiler API for dependency-cruiser yet: swc reads the sources, type imports included.
		parser: 'swc',
		tsPreCompilationDeps: true,
		moduleSystems: ['es6'],
	},
};
