/**
 * Fails when the API document regresses for the tools integrators use (`npm run check:openapi` at the root,
 * after `npm ci --prefix tools/openapi-check`):
 * 1. Redocly's recommended ruleset finds no error in docs/openapi.json (the document the API serves; a
 *    Workers test keeps the two equal);
 * 2. openapi-typescript, with its default settings, generates types from it;
 * 3. a typical integrator flow (flow.ts) written against those types with openapi-fetch compiles;
 * 4. the operator console's copy of those types (console/src/api/schema.d.ts) is up to date.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const document = join(here, '..', '..', 'docs', 'openapi.json');
const bin = (name) => join(here, 'node_modules', '.bin', name);

if (!existsSync(bin('redocly'))) {
	console.error('tools/openapi-check is not installed: run `npm ci --prefix tools/openapi-check` first.');
	process.exit(1);
}

function step(title, command, args) {
	console.log(`\n== ${title}`);
	const result = spawnSync(command, args, { cwd: here, stdio: 'inherit' });
	if (result.status !== 0) {
		console.error(`\nopenapi check failed at: ${title}`);
		process.exit(result.status ?? 1);
	}
}

mkdirSync(join(here, 'generated'), { recursive: true });
step("Redocly's recommended rules", bin('redocly'), [
	'lint',
	document,
	'--extends',
	'recommended',
	'--format',
	'stylish',
]);
step('openapi-typescript (default settings)', bin('openapi-typescript'), [document, '-o', 'generated/api.d.ts']);
step('the integrator flow type-checks against the generated client', bin('tsc'), ['-p', 'tsconfig.json']);

// 4. The console's typed client uses these same types (console/src/api/schema.d.ts, committed): they must be
// what the document generates now, or the console was type-checked against an API that no longer exists.
console.log("\n== the console's API types are the document's");
const consoleTypes = join(here, '..', '..', 'console', 'src', 'api', 'schema.d.ts');
if (readFileSync(consoleTypes, 'utf8') !== readFileSync(join(here, 'generated', 'api.d.ts'), 'utf8')) {
	console.error('console/src/api/schema.d.ts is out of date: run `npm run console:types`, then `npm run typecheck`.');
	process.exit(1);
}
console.log('\nopenapi check passed');
