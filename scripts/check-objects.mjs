// The domain reaches Durable Objects only through src/domain/objects.ts. dependency-cruiser sees imports, not
// `env.CONVERSATION_ROOM.getByName(...)`: this looks for the bindings' names in the rest of src/domain.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CALLERS = new Set(['src/domain/objects.ts']);
const BINDINGS = /\benv\.(CONVERSATION_ROOM|WORKSPACE_HUB|RATE_LIMITER|TOKEN_GATE)\b/;

function* files(dir) {
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) yield* files(path);
		else if (path.endsWith('.ts')) yield path;
	}
}

const found = [];
for (const file of files('src/domain')) {
	if (CALLERS.has(file)) continue;
	readFileSync(file, 'utf8')
		.split('\n')
		.forEach((line, i) => {
			if (BINDINGS.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
		});
}
if (found.length > 0) {
	console.error(`A Durable Object called outside src/domain/objects.ts:\n${found.join('\n')}`);
	process.exit(1);
}
console.log('Durable Objects: the domain calls them only through src/domain/objects.ts.');
