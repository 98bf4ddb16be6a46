// Global setup of the `browser` project: one real `wrangler dev` on a throwaway database, seeded with the
// workspaces e2e-1..e2e-199, shared by every browser test file (they run one after another), and the fake
// Graph API (test/fake-graph/server.mjs) its WhatsApp numbers talk to.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../scripts/engines.mjs';
import { applyMigrations, type SeededWorkspace, seedWorkspaces } from '../../scripts/local-db.mjs';
import { startFakeGraph } from '../fake-graph/server.mjs';
import { startFakePush } from '../fake-push/server.mjs';

declare module 'vitest' {
	interface ProvidedContext {
		/** The Worker under test, e.g. `http://127.0.0.1:43117` (no trailing slash). */
		baseUrl: string;
		/** `e2e-1`..`e2e-199` in order, each with an admin operator and its Token V3. */
		workspaces: SeededWorkspace[];
		/** The fake Graph API the Worker's WhatsApp numbers call (`WHATSAPP_GRAPH_URL`), for its `/__fake/` controls. */
		fakeGraphUrl: string;
		/** The fake push service every Web Push goes to (`PUSH_RELAY_URL`), for its `/__fake/` controls. */
		fakePushUrl: string;
	}
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WIDGET_BUILD = join(ROOT, 'dist/public/widget.js');
const WRANGLER = join(ROOT, 'node_modules/.bin/wrangler');
// 1..147 for the test files that name them, 148..195 for the journeys in each engine (journeys.ts), 196..198
// for the pictures of each engine (screenshots-engines.test.ts), 199 for console-settings.test.ts's slow webhook.
export const WORKSPACE_COUNT = 199;
const READY_TIMEOUT_MS = 60_000;

export default async function setup(project: TestProject) {
	if (!existsSync(WIDGET_BUILD)) {
		throw new Error(
			`${WIDGET_BUILD} is missing: the browser tests load the built widget. Run \`npm run build\` first (\`npm test\` does).`,
		);
	}
	const persistTo = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
	let wrangler: WranglerDev | undefined;
	const fakeGraph = await startFakeGraph();
	const fakePush = await startFakePush();
	const teardown = async () => {
		await wrangler?.stop();
		await fakeGraph.close();
		await fakePush.close();
		rmSync(persistTo, { recursive: true, force: true });
	};
	try {
		await applyMigrations(persistTo);
		const slugs = Array.from({ length: WORKSPACE_COUNT }, (_, i) => `e2e-${i + 1}`);
		const workspaces = await seedWorkspaces(slugs, persistTo);
		// The demo page (GET /demo) embeds the first workspace, as `npm run dev` embeds its demo one.
		wrangler = await startWranglerDev(persistTo, workspaces[0]?.workspaceId ?? '', fakeGraph.url, fakePush.url);
		project.provide('baseUrl', wrangler.baseUrl);
		project.provide('fakeGraphUrl', fakeGraph.url);
		project.provide('fakePushUrl', fakePush.url);
		project.provide('workspaces', workspaces);
	} catch (error) {
		await teardown();
		throw error;
	}
	return teardown;
}

interface WranglerDev {
	baseUrl: string;
	stop(): Promise<void>;
}

/**
 * Starts `wrangler dev` on free ports and resolves once GET /health answers 200. A port found free can be taken
 * before wrangler binds it (the other browser shard starts its own server at the same moment), so a start that
 * fails with "Address already in use" is tried again on new ports.
 */
async function startWranglerDev(
	persistTo: string,
	demoWorkspaceId: string,
	graphUrl: string,
	pushUrl: string,
): Promise<WranglerDev> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startWranglerDevOnce(persistTo, demoWorkspaceId, graphUrl, pushUrl);
		} catch (error) {
			if (attempt >= 3 || !String(error).includes('Address already in use')) throw error;
		}
	}
}

async function startWranglerDevOnce(
	persistTo: string,
	demoWorkspaceId: string,
	graphUrl: string,
	pushUrl: string,
): Promise<WranglerDev> {
	const port = await freePort();
	const inspectorPort = await freePort();
	const baseUrl = `http://127.0.0.1:${port}`;
	// Limits raised far out of reach: every test page comes from 127.0.0.1, so per-IP limits would be shared.
	const vars = {
		PARLEY_SECRET: randomBytes(32).toString('base64url'),
		WIDGET_SESSIONS_PER_IP: '100000',
		WIDGET_MESSAGES_PER_IP: '100000',
		RATE_LIMIT_PER_MINUTE: '100000',
		WIDGET_FLOOD_LIMIT: 'off',
		DEMO_WORKSPACE_ID: demoWorkspaceId,
		// Bot integrations call a local test server (test/browser/bot-integrations.test.ts): plain http to loopback.
		HTTPS_ONLY: 'off',
		OUTBOUND_LOOPBACK: 'on',
		// WhatsApp numbers send to the fake Graph API on this machine (test/browser/console-whatsapp.test.ts).
		WHATSAPP_GRAPH_URL: graphUrl,
		// Web Push goes to the fake push service on this machine (test/browser/console-alerts.test.ts).
		PUSH_RELAY_URL: pushUrl,
	};
	const args = [
		'dev',
		'--ip',
		'127.0.0.1',
		'--port',
		String(port),
		'--inspector-port',
		String(inspectorPort),
		'--persist-to',
		persistTo,
		'--show-interactive-dev-session=false',
		...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
	];
	// Its own process group, so stopping it also stops the workerd it spawns.
	const child = spawn(WRANGLER, args, {
		cwd: ROOT,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
	});
	let output = '';
	const keep = (chunk: Buffer) => {
		// The tail is what explains a failure; the whole log of a long run is not worth the memory.
		output = (output + chunk.toString()).slice(-20_000);
	};
	child.stdout?.on('data', keep);
	child.stderr?.on('data', keep);
	// A vitest that dies without teardown (Ctrl-C) must not leave a server behind.
	const killOnExit = () => killGroup(child, 'SIGKILL');
	process.once('exit', killOnExit);
	const stop = async () => {
		process.off('exit', killOnExit);
		await stopGroup(child);
	};

	const deadline = Date.now() + READY_TIMEOUT_MS;
	while (Date.now() < deadline) {
		if (child.exitCode !== null || child.signalCode !== null) {
			throw new Error(`wrangler dev exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`);
		}
		try {
			const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
			if (res.status === 200) return { baseUrl, stop };
		} catch {
			// Not listening yet.
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	await stop();
	throw new Error(`wrangler dev did not answer GET ${baseUrl}/health within ${READY_TIMEOUT_MS / 1000} s:\n${output}`);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// Already gone.
	}
}

/** SIGTERM to the whole group, SIGKILL if wrangler has not exited within 5 s. */
async function stopGroup(child: ChildProcess) {
	if (child.exitCode !== null || child.signalCode !== null) return killGroup(child, 'SIGKILL');
	const exited = new Promise((resolve) => child.once('exit', resolve));
	killGroup(child, 'SIGTERM');
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
	await exited;
	clearTimeout(timer);
	// workerd may outlive wrangler by a moment; nothing in the group is needed any more.
	killGroup(child, 'SIGKILL');
}
