// `npm run dev`: applies the local D1 migrations, makes sure the demo workspace exists, prints a working
// Token V3, then serves everything with `wrangler dev` (D1, Durable Objects, Queues, KV, assets; all local).
import { spawn } from 'node:child_process';
import { applyMigrations, ensureDevSecret, seedWorkspace } from './local-db.mjs';

const port = process.env.PORT ?? '8787';
ensureDevSecret();
applyMigrations();
const { workspaceId, token } = await seedWorkspace({ slug: 'demo' });
const baseUrl = `http://localhost:${port}`;

console.log(`
  Parley is starting on ${baseUrl}

  API base URL   ${baseUrl}/v3
  Workspace id   ${workspaceId}
  Token V3       ${token}
                 (a fresh token each start; the previous one is revoked)

  Try:  curl -H "Authorization: Bearer ${token}" ${baseUrl}/v3/conversations
`);

const wrangler = new URL('../node_modules/.bin/wrangler', import.meta.url).pathname;
const child = spawn(wrangler, ['dev', '--port', port, '--ip', '127.0.0.1', ...process.argv.slice(2)], {
	stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
