// The domain reaches Durable Objects only through src/domain/objects.ts, and every code path reaches D1 only
// through src/db/shards.ts (a workspace's shard, the directory, every shard). dependency-cruiser sees imports,
// not `env.CONVERSATION_ROOM.getByName(...)` or `env.DB`: this looks for the bindings' names in the code.
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

// `env.DB`, `this.env.DB`, `{ DB } = env`, and any shard's binding by name (DB_SHARD_…).
const D1_BINDING = /\.DB\b|\{\s*DB\b|\bDB_SHARD/;
const SHARDS = 'src/db/shards.ts';
const unrouted = [];
for (const dir of ['src', 'durable-objects']) {
	for (const file of files(dir)) {
		if (file === SHARDS || file.endsWith('.d.ts')) continue;
		readFileSync(file, 'utf8')
			.split('\n')
			.forEach((line, i) => {
				const code = line.trim();
				if (!code.startsWith('//') && !code.startsWith('*') && D1_BINDING.test(line)) {
					unrouted.push(`${file}:${i + 1}: ${code}`);
				}
			});
	}
}
if (unrouted.length > 0) {
	console.error(
		`A D1 binding read outside ${SHARDS} (go through workspaceDb, directoryDb or forEachShard):\n${unrouted.join('\n')}`,
	);
	process.exit(1);
}
console.log(`D1: every query reaches its database through ${SHARDS}.`);
