// The WhatsApp section of `npm run bench`, against GET /health in the same run. The Graph API is the fake
// (test/fake-graph/server.mjs), started in the bench process; wrangler dev gets its URL as WHATSAPP_GRAPH_URL.
// - inbound: a webhook as Meta sends it (one text message from a new customer, signed with the number's app
//   secret: X-Hub-Signature-256), posted to /whatsapp/{id}/webhook, until the message is readable through
//   GET /v3/conversations/{id}/messages (the new conversation's id read from GET /v3/conversations, newest
//   first: one more API read inside the figure). One at a time, after a few unrecorded. Then every one of
//   those webhooks is delivered again, byte for byte, as Meta retries, and each conversation's messages are
//   counted through the API: a redelivery must add none.
// - campaign: a WhatsApp campaign of an approved template to CAMPAIGN_CONTACTS contacts (seeded by SQL before
//   wrangler dev starts, each with a WhatsApp id), from the number connected with messagesPerSecond 80 (Meta's
//   default). The figures are the fake's: when it accepted each message (its record), the sustained rate over
//   the middle of the run, the most in any one-second window (Meta refuses beyond 80: 130429), and how many
//   messages each contact got.
import { createHmac, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { executeFile, literal } from '../scripts/local-db.mjs';
import { apiCall as api, latencySummary, sequentialHealth } from './load.mjs';
import { ratio, round } from './report-format.mjs';

export const CAMPAIGN_CONTACTS = 2_000;
const WARMUP_WEBHOOKS = 5;
const READABLE_TIMEOUT_MS = 10_000;
const CAMPAIGN_TIMEOUT_MS = 600_000;
/** Meta's default limit for a business number, and what the number is connected with. */
const META_LIMIT = 80;
const PHONE_NUMBER_ID = '106540352242922';
const BUSINESS_ACCOUNT_ID = '102290129340398';
const TEMPLATE = { name: 'bench_offer', language: 'en', body: 'Hi {{1}}, our sale starts today.' };
/** The share of the campaign's messages (by order) left out at each end of the sustained rate. */
const EDGE = 0.1;

const waIdOf = (i) => `4477${String(i).padStart(8, '0')}`;
const customerOf = (i) => `5511${String(i).padStart(9, '0')}`;

/** SQL that writes the campaign's contacts, each with a WhatsApp id (as one who wrote before has). */
export async function seedWhatsappContacts(persistTo, workspaceId, now = Date.now()) {
	const ws = literal(workspaceId);
	const sql = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${CAMPAIGN_CONTACTS - 1})
		INSERT INTO contacts (id, workspace_id, name, phone, whatsapp_id, custom_fields, created_at, updated_at)
		SELECT printf('ctc_wa_%05d', i), ${ws}, 'Customer ' || i, '+4477' || printf('%08d', i), '4477' || printf('%08d', i),
			'{}', ${now}, ${now} FROM n;`;
	const file = path.join(persistTo, 'bench-whatsapp-contacts.sql');
	await writeFile(file, sql);
	executeFile(file, persistTo);
}

const contactIdOf = (i) => `ctc_wa_${String(i).padStart(5, '0')}`;

async function fakeCall(fake, pathname, body) {
	const response = await fetch(`${fake.url}${pathname}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`fake ${pathname}: ${response.status} ${await response.text()}`);
	return response.json();
}

/** Connects the number through the API, pins its token in the fake and gives it an approved template there. */
async function connect(baseUrl, workspace, fake) {
	const accessToken = `EAAG${randomBytes(16).toString('hex')}`;
	const appSecret = randomBytes(16).toString('hex');
	const number = await api(baseUrl, workspace.token, 'POST', '/v3/whatsapp/numbers', {
		phoneNumberId: PHONE_NUMBER_ID,
		businessAccountId: BUSINESS_ACCOUNT_ID,
		accessToken,
		appSecret,
		displayPhoneNumber: '+1 555 078 3881',
		messagesPerSecond: META_LIMIT,
	});
	await fakeCall(fake, '/__fake/numbers', { phoneNumberId: PHONE_NUMBER_ID, accessToken });
	await fakeCall(fake, '/__fake/templates', {
		businessAccountId: BUSINESS_ACCOUNT_ID,
		phoneNumberId: PHONE_NUMBER_ID,
		templates: [
			{ name: TEMPLATE.name, language: TEMPLATE.language, components: [{ type: 'BODY', text: TEMPLATE.body }] },
		],
	});
	return { id: number.id, appSecret };
}

/** Meta's webhook for one text message from `from`: its exact bytes and their signature. */
function webhook(number, from, text) {
	const wamid = `wamid.${randomBytes(16).toString('hex')}`;
	const payload = {
		object: 'whatsapp_business_account',
		entry: [
			{
				id: BUSINESS_ACCOUNT_ID,
				changes: [
					{
						field: 'messages',
						value: {
							messaging_product: 'whatsapp',
							metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
							contacts: [{ profile: { name: `Customer ${from}` }, wa_id: from }],
							messages: [
								{
									from,
									id: wamid,
									timestamp: String(Math.floor(Date.now() / 1000)),
									type: 'text',
									text: { body: text },
								},
							],
						},
					},
				],
			},
		],
	};
	const bytes = Buffer.from(JSON.stringify(payload));
	const signature = `sha256=${createHmac('sha256', number.appSecret).update(bytes).digest('hex')}`;
	return { bytes, signature };
}

async function postWebhook(baseUrl, number, { bytes, signature }) {
	const response = await fetch(`${baseUrl}/whatsapp/${number.id}/webhook`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signature },
		body: bytes,
		signal: AbortSignal.timeout(30_000),
	});
	const body = await response.text();
	if (response.status !== 200) throw new Error(`POST /whatsapp/${number.id}/webhook: ${response.status} ${body}`);
}

/** The conversation's messages (its first page: a customer here writes one, or two if one was duplicated). */
async function messagesOf(baseUrl, token, conversationId) {
	return (await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}/messages?limit=10`)).data;
}

/** One webhook from a new customer, alone in flight: from its posting until its message is readable. */
async function inboundOne(baseUrl, workspace, number, i, run) {
	const marker = `bench-wa-${run}-${i}`;
	const sent = webhook(number, customerOf(i), `Hello (${marker})`);
	const started = performance.now();
	await postWebhook(baseUrl, number, sent);
	const handledMs = performance.now() - started;
	// Newest first, and no other message is in flight: the first is this one (its message is checked).
	const [conversation] = (await api(baseUrl, workspace.token, 'GET', '/v3/conversations?limit=1')).data;
	const deadline = performance.now() + READABLE_TIMEOUT_MS;
	while (performance.now() < deadline) {
		const messages = await messagesOf(baseUrl, workspace.token, conversation.id);
		if (messages.some((m) => m.text?.includes(marker))) {
			return { conversationId: conversation.id, marker, sent, handledMs, readableMs: performance.now() - started };
		}
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	throw new Error(`webhook ${i}: its message was not readable within ${READABLE_TIMEOUT_MS} ms`);
}

const summary = (rows, key, healthP50) => {
	const figures = latencySummary(rows.map((r) => r[key]));
	return { ...figures, p50VsHealth: ratio(figures.p50Ms, healthP50), p99VsHealth: ratio(figures.p99Ms, healthP50) };
};

async function inbound({ baseUrl, workspace, number, webhooks, healthSequential, warnings, log }) {
	const run = Date.now().toString(36);
	log(`whatsapp: ${WARMUP_WEBHOOKS} warm-up webhooks, then ${webhooks}, one at a time, each from a new customer`);
	const all = [];
	for (let i = 0; i < WARMUP_WEBHOOKS + webhooks; i++) all.push(await inboundOne(baseUrl, workspace, number, i, run));
	const timed = all.slice(WARMUP_WEBHOOKS);
	log(`whatsapp: every one of the ${all.length} webhooks delivered again`);
	const again = performance.now();
	for (const one of all) await postWebhook(baseUrl, number, one.sent);
	const redeliverySeconds = (performance.now() - again) / 1000;
	let duplicated = 0;
	let missing = 0;
	for (const one of all) {
		const copies = (await messagesOf(baseUrl, workspace.token, one.conversationId)).filter((m) =>
			m.text?.includes(one.marker),
		).length;
		if (copies > 1) duplicated += copies - 1;
		if (copies === 0) missing++;
	}
	if (duplicated > 0) warnings.push(`whatsapp: ${duplicated} messages duplicated by a redelivered webhook`);
	if (missing > 0) warnings.push(`whatsapp: ${missing} messages missing after the redelivery`);
	const p50 = healthSequential.p50Ms;
	return {
		webhooks,
		readable: summary(timed, 'readableMs', p50),
		handled: summary(timed, 'handledMs', p50),
		redelivered: all.length,
		redeliverySeconds: round(redeliverySeconds, 2),
		duplicated,
		missing,
	};
}

/** The most timestamps (sorted) in any window of `ms`. */
function peakIn(sorted, ms) {
	let peak = 0;
	let from = 0;
	for (let to = 0; to < sorted.length; to++) {
		while (sorted[to] - sorted[from] >= ms) from++;
		peak = Math.max(peak, to - from + 1);
	}
	return peak;
}

async function campaign({ baseUrl, workspace, number, fake, health, warnings, log }) {
	const contactIds = Array.from({ length: CAMPAIGN_CONTACTS }, (_, i) => contactIdOf(i));
	const created = await api(baseUrl, workspace.token, 'POST', '/v3/campaigns', {
		name: 'Bench WhatsApp campaign',
		channel: 'whatsapp',
		whatsappNumberId: number.id,
		whatsappTemplate: { name: TEMPLATE.name, language: TEMPLATE.language, variables: ['{{ contact.name }}'] },
		audience: { kind: 'contacts', contactIds },
	});
	log(`whatsapp: a campaign to ${CAMPAIGN_CONTACTS} contacts, the number paced for ${META_LIMIT} a second`);
	const started = Date.now();
	await api(baseUrl, workspace.token, 'POST', `/v3/campaigns/${created.id}/send`, {});
	const expected = new Set(contactIds.map((_, i) => waIdOf(i)));
	let record = { messages: [], refused: [] };
	let templates = [];
	while (Date.now() - started < CAMPAIGN_TIMEOUT_MS) {
		record = await fakeCall(fake, `/__fake/messages?phoneNumberId=${PHONE_NUMBER_ID}`);
		templates = record.messages.filter((m) => m.type === 'template' && expected.has(m.to));
		if (templates.length >= CAMPAIGN_CONTACTS) break;
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
	// What else could still come (a duplicate) comes within moments.
	await new Promise((resolve) => setTimeout(resolve, 3000));
	record = await fakeCall(fake, `/__fake/messages?phoneNumberId=${PHONE_NUMBER_ID}`);
	templates = record.messages.filter((m) => m.type === 'template' && expected.has(m.to));
	const perContact = new Map();
	for (const m of templates) perContact.set(m.to, (perContact.get(m.to) ?? 0) + 1);
	const twice = [...perContact.values()].filter((n) => n > 1).length;
	const reached = perContact.size;
	if (reached !== CAMPAIGN_CONTACTS) warnings.push(`whatsapp campaign: ${reached} of ${CAMPAIGN_CONTACTS} reached`);
	if (twice > 0) warnings.push(`whatsapp campaign: ${twice} contacts got more than one template`);
	const at = templates.map((m) => m.at).sort((a, b) => a - b);
	const first = at[0] ?? started;
	const last = at.at(-1) ?? started;
	const lo = Math.floor(at.length * EDGE);
	const hi = Math.max(lo, Math.ceil(at.length * (1 - EDGE)) - 1);
	const middleSeconds = ((at[hi] ?? 0) - (at[lo] ?? 0)) / 1000;
	const sustained = middleSeconds > 0 ? round((hi - lo) / middleSeconds, 1) : null;
	const peak = peakIn(at, 1000);
	if (peak > META_LIMIT) warnings.push(`whatsapp campaign: ${peak} messages in one second, over Meta's ${META_LIMIT}`);
	const view = await api(baseUrl, workspace.token, 'GET', `/v3/campaigns/${created.id}`);
	// Messages accepted in each 5 s from the send: where a run is slow (its start, its end, between batches).
	const timeline = [];
	for (const t of at) {
		const slot = Math.floor((t - started) / 5000);
		while (timeline.length <= slot) timeline.push(0);
		timeline[slot] += 1;
	}
	const overall = at.length > 1 ? round((at.length - 1) / ((last - first) / 1000), 1) : null;
	return {
		contacts: CAMPAIGN_CONTACTS,
		limitPerSecond: META_LIMIT,
		status: view.status,
		recipientsSent: view.counts.sent,
		messages: templates.length,
		reached,
		contactsMessagedTwice: twice,
		refusedByFake: record.refused.length,
		sendToFirstSeconds: round((first - started) / 1000, 2),
		sendToLastSeconds: round((last - started) / 1000, 2),
		firstToLastPerSecond: overall,
		sustainedPerSecond: sustained,
		sustainedShare: `messages ${lo + 1} to ${hi + 1} of ${at.length}`,
		peakInOneSecond: peak,
		perFiveSeconds: timeline,
		sustainedVsLimit: ratio(sustained, META_LIMIT),
		sustainedVsHealthRps: ratio(sustained, health.rps),
	};
}

export async function whatsappSection({ baseUrl, workspace, fake, webhooks, health, warnings, log }) {
	try {
		const number = await connect(baseUrl, workspace, fake);
		const healthSequential = await sequentialHealth(baseUrl, 200);
		const inboundFigures = await inbound({ baseUrl, workspace, number, webhooks, healthSequential, warnings, log });
		const campaignFigures = await campaign({ baseUrl, workspace, number, fake, health, warnings, log });
		return { healthSequential, inbound: inboundFigures, campaign: campaignFigures };
	} catch (error) {
		warnings.push(`whatsapp failed: ${error.message}`);
		return null;
	}
}
