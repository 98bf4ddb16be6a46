// `npm run dev`: builds the widget and the console (and rebuilds them on change), applies the local D1 migrations, makes sure
// the demo workspace exists, prints a working Token V3 and the demo admin's console password, then serves everything with `wrangler dev` (D1,
// Durable Objects, Queues, KV, assets; all local), with the demo site at /demo.
import { spawn, spawnSync } from 'node:child_process';
import { startFakeGraph } from '../test/fake-graph/server.mjs';
import { parseDevArgs } from './dev-args.mjs';
import { applyMigrations, DEMO_INBOX, ensureDevSecret, seedDemoMail, seedWorkspace } from './local-db.mjs';
import { connectDemoNumber, DEMO_NUMBER } from './whatsapp-demo-number.mjs';

// `npm run dev -- --port 3000 --local-protocol https`: the port and address are taken out (this script passes
// them, and wrangler refuses a flag given twice), the rest goes to wrangler as is.
let devArgs;
try {
	devArgs = parseDevArgs(process.argv.slice(2), process.env);
} catch (error) {
	console.error(`npm run dev: ${error.message}`);
	process.exit(1);
}
const { port, ip, protocol, wranglerArgs } = devArgs;
const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const build = new URL('./build.mjs', import.meta.url).pathname;
if (spawnSync(process.execPath, [build, '--quiet'], { stdio: 'inherit' }).status !== 0) process.exit(1);
ensureDevSecret();
await applyMigrations();
const { workspaceId, token, email, password } = await seedWorkspace({ slug: 'demo' });
const baseUrl = `${protocol}://localhost:${port}`;
await seedDemoMail(workspaceId, baseUrl);
// WhatsApp's Graph API, faked on this machine (test/fake-graph/server.mjs): every connected number that does not
// name its own Graph URL talks to it, so the channel works without Meta.
const fakeGraph = await startFakeGraph({ port: Number(process.env.WHATSAPP_FAKE_PORT ?? 0) });

console.log(`
  Parley is starting on ${baseUrl}

  Console        ${baseUrl}/console
                 e-mail ${email}   password ${password}
  Demo site      ${baseUrl}/demo   (the widget on a pretend shop)
  API base URL   ${baseUrl}/v3
  Workspace id   ${workspaceId}
  Token V3       ${token}
                 (a fresh token and password each start: the previous ones stop working)

  Try:  curl -H "Authorization: Bearer ${token}" ${baseUrl}/v3/conversations

  Mail in        ${DEMO_INBOX} receives: npm run mail:demo   (or POST a raw mail to
                 ${baseUrl}/cdn-cgi/handler/email?from=<sender>&to=${DEMO_INBOX})
  Mail out       written under .wrangler/tmp/ (wrangler prints each path), listed in Settings → E-mail
  WhatsApp       Meta's Graph API is faked at ${fakeGraph.url} (see docs/whatsapp.md)
  WhatsApp in    ${DEMO_NUMBER.displayPhoneNumber} (connected once wrangler answers) receives: npm run whatsapp:demo
                 replies: ${fakeGraph.url}/__fake/messages?phoneNumberId=${DEMO_NUMBER.phoneNumberId}
`);

// Rebuilds widget/ and console/ into dist/public on every change; wrangler dev serves the new files at once.
const watcher = spawn(process.execPath, [build, '--quiet', '--watch'], { stdio: 'inherit' });
const args = [
	'dev',
	'--port',
	port,
	'--ip',
	ip,
	'--var',
	`DEMO_WORKSPACE_ID:${workspaceId}`,
	'--var',
	'HTTPS_ONLY:off',
	// A bot integration (or its test mode) may call a server on this machine: never in production.
	'--var',
	'OUTBOUND_LOOPBACK:on',
	'--var',
	`WHATSAPP_GRAPH_URL:${fakeGraph.url}`,
];
const child = spawn(bin('wrangler'), [...args, ...wranglerArgs], { stdio: 'inherit' });
// The demo number is connected through the API, so the Worker seals its secrets itself (under .dev.vars' secret).
connectDemoNumber(`${protocol}://127.0.0.1:${port}`, token, fakeGraph.url).then(
	() => console.log(`\n  WhatsApp demo number ${DEMO_NUMBER.displayPhoneNumber} connected: npm run whatsapp:demo\n`),
	(error) => console.error(`\n  The demo WhatsApp number was not connected: ${error.message}\n`),
);
for (const signal of ['SIGINT', 'SIGTERM']) {
	process.on(signal, () => {
		watcher.kill(signal);
		child.kill(signal);
	});
}
child.on('exit', (code) => {
	watcher.kill();
	process.exit(code ?? 0);
});
