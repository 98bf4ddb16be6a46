// The redelivery part of the e-mail section of `npm run bench` (bench/email.mjs): every sent delivery's mail
// Queue message delivered again, by a second Worker in its own `wrangler dev` (bench/mail-redeliver) that sends
// `{ deliveryId }` to the same local Queue through wrangler's dev registry, then a seeded sentinel delivery that
// says when the consumer has worked through them; the mails the `send_email` binding was handed are counted
// from wrangler's own record of every send() (its local explorer's list of sent mail), before and after.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { executeFile, literal } from '../scripts/local-db.mjs';
import { allPages, apiCall as api } from './load.mjs';
import { round } from './report-format.mjs';
import { startWranglerDev } from './server.mjs';

export const SEND_TIMEOUT_MS = 600_000;
const SETTLE_MS = 2_000;
/** The delivery queued last behind the redelivered messages: its claim marks the end of their turn. */
export const SENTINEL_ID = 'mail_bench_redelivery_sentinel';
const EXPLORER = '/cdn-cgi/local/explorer/api/local/email/sending';
const REDELIVERER = new URL('./mail-redeliver/wrangler.toml', import.meta.url).pathname;

/**
 * Writes the sentinel before wrangler dev starts: a `reply` delivery of no conversation, queued and never put
 * on the Queue by Parley. The consumer claims it (attempts 1) and records it skipped, mailing nothing.
 */
export async function seedRedeliverySentinel(persistTo, workspaceId, now = Date.now()) {
	const file = path.join(persistTo, 'bench-mail-sentinel.sql');
	const values = [SENTINEL_ID, workspaceId, 'reply', 'bench:redelivery-sentinel', 'sentinel@bench-mail.test']
		.map(literal)
		.join(', ');
	const sql = `INSERT INTO mail_deliveries (id, workspace_id, kind, dedupe_key, recipient, status, attempts, created_at, updated_at)
		VALUES (${values}, 'queued', 0, ${now}, ${now});`;
	await writeFile(file, sql);
	executeFile(file, persistTo);
}

/** Every mail wrangler's `send_email` simulation was handed in this session (its local explorer's record). */
async function mailsHandedToBinding(baseUrl) {
	const mails = [];
	let cursor = null;
	do {
		const url = `${baseUrl}${EXPLORER}?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
		const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
		const body = await response.json().catch(() => null);
		if (response.status !== 200 || !body?.success) {
			throw new Error(`GET ${EXPLORER}: ${response.status} ${JSON.stringify(body)?.slice(0, 300)}`);
		}
		mails.push(...body.result);
		cursor = body.result_info?.has_more ? body.result_info.cursor : null;
	} while (cursor);
	return mails;
}

/** Mails per recipient; how many recipients got more than one. */
function perRecipient(mails) {
	const counts = new Map();
	for (const mail of mails) {
		for (const to of mail.to ?? []) {
			const address = typeof to === 'string' ? to : to.address;
			counts.set(address, (counts.get(address) ?? 0) + 1);
		}
	}
	return { recipients: counts.size, twice: [...counts.values()].filter((n) => n > 1).length };
}

export async function until(done, timeoutMs, everyMs = 500) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await done()) return true;
		await new Promise((resolve) => setTimeout(resolve, everyMs));
	}
	return false;
}

/** Every delivery of the workspace but the sentinel. */
export const deliveriesOf = async (baseUrl, token) =>
	(await allPages(baseUrl, token, '/v3/email/deliveries?limit=100')).filter((d) => d.id !== SENTINEL_ID);

/** Delivers each sent delivery's Queue message again, the sentinel last; counts the mails before and after. */
export async function redeliver({ baseUrl, workspace, sent, registryPath, persistTo, warnings, log }) {
	const before = await mailsHandedToBinding(baseUrl);
	log(`e-mail: starting the redelivering Worker; ${before.length} mails handed to the binding so far`);
	const redeliverer = await startWranglerDev({
		persistTo: path.join(persistTo, 'mail-redeliver'),
		config: REDELIVERER,
		env: { WRANGLER_REGISTRY_PATH: registryPath },
	});
	// run.mjs stops its own wrangler on SIGINT and exits: this one, in a process group of its own, goes too.
	const killOnExit = () => {
		try {
			process.kill(-redeliverer.pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	};
	process.once('exit', killOnExit);
	try {
		const queued = await api(baseUrl, workspace.token, 'GET', '/v3/email/deliveries?status=queued&limit=100');
		if (!queued.data.some((d) => d.id === SENTINEL_ID)) {
			warnings.push('e-mail: the sentinel was no longer queued before the redelivery: its claim proves nothing');
		}
		log(`e-mail: delivering the Queue message of each of the ${sent.length} sent deliveries again`);
		const started = performance.now();
		const response = await fetch(redeliverer.baseUrl, {
			method: 'POST',
			body: JSON.stringify([...sent.map((d) => d.id), SENTINEL_ID]),
			signal: AbortSignal.timeout(120_000),
		});
		if (response.status !== 200) throw new Error(`redeliverer: ${response.status} ${await response.text()}`);
		// Claimed: no longer queued (it is recorded skipped), or queued again after a try (attempts counted).
		const reached = await until(async () => {
			const page = await api(baseUrl, workspace.token, 'GET', '/v3/email/deliveries?status=queued&limit=100');
			const sentinel = page.data.find((d) => d.id === SENTINEL_ID);
			return sentinel === undefined || sentinel.attempts > 0;
		}, SEND_TIMEOUT_MS);
		const seconds = (performance.now() - started) / 1000;
		if (!reached)
			warnings.push('e-mail: the redelivered messages were not all consumed (the sentinel was never claimed)');
		// A mail sent twice would be sent by now; wait a little longer anyway before counting.
		await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
		const after = await mailsHandedToBinding(baseUrl);
		const deliveries = await deliveriesOf(baseUrl, workspace.token);
		const byId = new Map(sent.map((d) => [d.id, d]));
		const changed = deliveries.filter((d) => {
			const was = byId.get(d.id);
			return was && (d.status !== 'sent' || d.messageId !== was.messageId || d.attempts !== was.attempts);
		});
		// Each sent delivery is one mail to its own recipient: a capture that missed sends would show here first.
		if (before.length !== sent.length) {
			warnings.push(`e-mail: ${before.length} mails handed to the binding for ${sent.length} sent deliveries`);
		}
		const counts = perRecipient(after);
		const sentTwice = counts.twice;
		if (sentTwice > 0) warnings.push(`e-mail: ${sentTwice} recipients got their mail twice after redelivery`);
		if (after.length !== before.length) {
			warnings.push(`e-mail: ${after.length - before.length} more mails handed to the binding after redelivery`);
		}
		if (changed.length > 0) warnings.push(`e-mail: ${changed.length} sent deliveries changed after redelivery`);
		return {
			redelivered: sent.length,
			consumed: reached,
			secondsUntilConsumed: round(seconds, 2),
			mailsBefore: before.length,
			mailsAfter: after.length,
			recipients: counts.recipients,
			sentTwice,
			deliveriesChanged: changed.length,
		};
	} finally {
		await redeliverer.stop();
		process.off('exit', killOnExit);
	}
}
