// Bot integrations against a real local HTTP server, and a lead-qualification bot run end to end through the
// widget's public endpoints, on the one `wrangler dev` of global-setup.ts (HTTPS_ONLY off, loopback allowed:
// the only setting under which the guarded fetch may call 127.0.0.1). No browser: Node plays the visitor.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { baseUrl, messageTexts, putSettings } from './widget-page';

interface Seen {
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
	body: unknown;
}

/** The remote products, stood in for by one local server: records each request, answers per path. */
let server: Server;
let remote = '';
const seen: Seen[] = [];
const answers: Array<[RegExp, number, unknown]> = [
	[/^\/crm\/v3\/objects\/contacts\/batch\/upsert$/, 200, { results: [{ id: 'hs-contact-1' }] }],
	[/^\/crm\/v3\/objects\/deals$/, 201, { id: 'hs-deal-7', properties: { dealname: 'Ana' } }],
	[/^\/crm\/v3\/objects\/p_orders$/, 201, { id: 'hs-order-3' }],
	[/^\/platform\/contacts\/email:/, 200, { uuid: 'rd-uuid-1' }],
	[/^\/platform\/events/, 200, { event_uuid: 'rd-event-9' }],
	[/^\/services\/data\/v60\.0\/sobjects\/Opportunity$/, 201, { id: '006XX01', success: true }],
	[/^\/services\/data\/v60\.0\/sobjects\/Opportunity\/006XX01$/, 204, null],
	[/^\/v1\/persons$/, 201, { success: true, data: { id: 42 } }],
	[/^\/v1\/deals\/7$/, 200, { success: true, data: { id: 7, title: 'Renewal', value: 900 } }],
	[/^\/leads$/, 201, { lead: { id: 'L-77', score: 88 } }],
	[/^\/broken$/, 503, { error: 'down for maintenance' }],
];

beforeAll(async () => {
	server = createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk) => {
			raw += chunk;
		});
		req.on('end', () => {
			const path = req.url ?? '/';
			seen.push({ method: req.method ?? '', path, headers: req.headers, body: raw === '' ? null : JSON.parse(raw) });
			const [, status, body] = answers.find(([pattern]) => pattern.test(path.split('?')[0] ?? '')) ?? [/./, 404, {}];
			res.writeHead(status, { 'Content-Type': 'application/json' });
			res.end(body === null ? '' : JSON.stringify(body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	remote = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs one preset through the integration test mode; returns its result and the request the server saw. */
async function tryPreset(token: string, preset: Record<string, unknown>, response?: Record<string, string>) {
	const before = seen.length;
	const { status, body } = await api(baseUrl, token, 'POST', '/v3/bots/test-integration', {
		step: { type: 'integration', preset: { baseUrl: remote, ...preset }, ...(response ? { response } : {}) },
		variables: { email: 'ana@example.com', name: 'Ana "Souza"', deal: '7' },
	});
	expect(status, JSON.stringify(body)).toBe(200);
	expect(seen.length).toBe(before + 1);
	return {
		result: body as { ok: boolean; data: unknown; variables: Record<string, unknown> },
		request: seen.at(-1) as Seen,
	};
}

describe('built-in integrations, against a local server', () => {
	it('HubSpot: upserts a contact, creates a deal and a custom object record with its private app token', async () => {
		const { token } = workspace(55);
		const hubspot = { product: 'hubspot', token: 'pat-na1-secret' };
		const contact = await tryPreset(token, {
			...hubspot,
			operation: 'upsert_contact',
			fields: { email: '{{ email }}', firstname: '{{ name }}' },
		});
		expect(contact.request).toMatchObject({
			method: 'POST',
			path: '/crm/v3/objects/contacts/batch/upsert',
			headers: { authorization: 'Bearer pat-na1-secret', 'content-type': 'application/json' },
			body: {
				inputs: [
					{
						idProperty: 'email',
						id: 'ana@example.com',
						properties: { email: 'ana@example.com', firstname: 'Ana "Souza"' },
					},
				],
			},
		});
		const deal = await tryPreset(
			token,
			{ ...hubspot, operation: 'create_deal', fields: { dealname: '{{ name }}', amount: '1500' } },
			{ hubspot_deal: 'id' },
		);
		expect(deal.request).toMatchObject({ method: 'POST', path: '/crm/v3/objects/deals' });
		expect(deal.request.body).toEqual({ properties: { dealname: 'Ana "Souza"', amount: '1500' } });
		expect(deal.result).toMatchObject({ ok: true, variables: { hubspot_deal: 'hs-deal-7' } });
		const record = await tryPreset(token, {
			...hubspot,
			operation: 'create_object_record',
			object: 'p_orders',
			fields: { order_id: 'A-1' },
		});
		expect(record.request).toMatchObject({
			path: '/crm/v3/objects/p_orders',
			body: { properties: { order_id: 'A-1' } },
		});
	});

	it('RD Station Marketing: upserts a contact by e-mail and sends a conversion event', async () => {
		const { token } = workspace(55);
		const rd = { product: 'rd_station', token: 'rd-access-token' };
		const contact = await tryPreset(token, {
			...rd,
			operation: 'upsert_contact',
			fields: { email: '{{ email }}', name: '{{ name }}', cf_origem: 'bot' },
		});
		expect(contact.request).toMatchObject({
			method: 'PATCH',
			path: '/platform/contacts/email:ana%40example.com',
			headers: { authorization: 'Bearer rd-access-token' },
			body: { name: 'Ana "Souza"', cf_origem: 'bot' },
		});
		const conversion = await tryPreset(token, {
			...rd,
			operation: 'conversion',
			event: 'lead-from-bot',
			fields: { email: '{{ email }}' },
		});
		expect(conversion.request).toMatchObject({
			method: 'POST',
			path: '/platform/events?event_type=CONVERSION',
			body: {
				event_type: 'CONVERSION',
				event_family: 'CDP',
				payload: { conversion_identifier: 'lead-from-bot', email: 'ana@example.com' },
			},
		});
	});

	it('Salesforce: creates an opportunity and updates its fields on the org’s instance', async () => {
		const { token } = workspace(55);
		const salesforce = { product: 'salesforce', token: '00Dxx!token' };
		const created = await tryPreset(
			token,
			{
				...salesforce,
				operation: 'create_opportunity',
				fields: { Name: '{{ name }}', StageName: 'Prospecting', CloseDate: '2026-12-31', Amount: '1500' },
			},
			{ opportunity: 'id' },
		);
		expect(created.request).toMatchObject({
			method: 'POST',
			path: '/services/data/v60.0/sobjects/Opportunity',
			headers: { authorization: 'Bearer 00Dxx!token' },
			body: { Name: 'Ana "Souza"', StageName: 'Prospecting', CloseDate: '2026-12-31', Amount: '1500' },
		});
		expect(created.result.variables).toEqual({ opportunity: '006XX01' });
		const updated = await tryPreset(token, {
			...salesforce,
			operation: 'update_fields',
			object: 'Opportunity',
			recordId: '006XX01',
			fields: { StageName: 'Qualification' },
		});
		expect(updated.request).toMatchObject({
			method: 'PATCH',
			path: '/services/data/v60.0/sobjects/Opportunity/006XX01',
			body: { StageName: 'Qualification' },
		});
		expect(updated.result).toMatchObject({ ok: true });
	});

	it('Pipedrive: maps fields onto a person and runs a custom operation with its API token header', async () => {
		const { token } = workspace(55);
		const pipedrive = { product: 'pipedrive', token: 'pd-api-token' };
		const person = await tryPreset(token, {
			...pipedrive,
			operation: 'create_person',
			fields: { name: '{{ name }}', email: '{{ email }}', d4c2a5e0b1: 'from the bot' },
		});
		expect(person.request).toMatchObject({
			method: 'POST',
			path: '/v1/persons',
			headers: { 'x-api-token': 'pd-api-token' },
			body: { name: 'Ana "Souza"', email: 'ana@example.com', d4c2a5e0b1: 'from the bot' },
		});
		const custom = await tryPreset(
			token,
			{ ...pipedrive, operation: 'custom', method: 'GET', path: '/v1/deals/{{ deal }}' },
			{ deal_value: 'data.value' },
		);
		expect(custom.request).toMatchObject({ method: 'GET', path: '/v1/deals/7', body: null });
		expect(custom.result.variables).toEqual({ deal_value: 900 });
	});

	it('shows an error answer in test mode, without a bot going anywhere', async () => {
		const { token } = workspace(55);
		const { status, body } = await api(baseUrl, token, 'POST', '/v3/bots/test-integration', {
			step: { type: 'integration', method: 'GET', url: `${remote}/broken`, response: { x: 'y' } },
		});
		expect(status).toBe(200);
		expect(body).toEqual({
			ok: false,
			error: 'the answer was HTTP 503',
			data: { status: 503, body: { error: 'down for maintenance' } },
			variables: {},
		});
	});
});

/** The lead-qualification bot of the issue: thirteen steps, each action kind among them. */
function leadBot(groupId: string) {
	return {
		start: 'hello',
		steps: [
			{ id: 'hello', type: 'send_message', text: 'Hi! I am the *Acme* assistant.', next: 'ask-name' },
			{
				id: 'ask-name',
				type: 'data_entry',
				prompt: 'What is your name?',
				input: 'text',
				variable: 'name',
				next: 'ask-email',
			},
			{
				id: 'ask-email',
				type: 'data_entry',
				prompt: 'Thanks {{ name }}! Your e-mail?',
				input: 'email',
				variable: 'email',
				validation: { message: 'That does not look like an e-mail. Your e-mail?' },
				next: 'ask-cpf',
			},
			{
				id: 'ask-cpf',
				type: 'data_entry',
				prompt: 'Your CPF?',
				input: 'text',
				variable: 'cpf',
				validation: { format: 'cpf' },
				next: 'ask-size',
			},
			{
				id: 'ask-size',
				type: 'data_entry',
				prompt: 'Team size?',
				input: 'buttons',
				variable: 'size',
				choices: [{ label: '1-10' }, { label: '11+' }],
				next: 'hours',
			},
			{
				id: 'hours',
				type: 'decision',
				branches: [{ condition: { fact: 'businessHours.open', operator: 'eq', value: true }, next: 'deal' }],
				default: 'closed',
			},
			{
				id: 'deal',
				type: 'create_deal',
				funnel: 'Sales',
				stage: 'Qualified',
				name: '{{ name }} ({{ size }})',
				value: '1.500,00',
				next: 'tag',
				onError: 'handoff',
			},
			{ id: 'tag', type: 'apply_tag', tag: 'lead', next: 'contact' },
			{ id: 'contact', type: 'update_contact', name: '{{ name }}', email: '{{ email }}', next: 'crm' },
			{
				id: 'crm',
				type: 'integration',
				method: 'POST',
				url: `${remote}/leads`,
				auth: { kind: 'bearer', token: 'crm-secret' },
				body: '{"email": {{ email | json }}, "cpf": {{ cpf | json }}, "deal": {{ deal_id | json }}}',
				response: { lead_id: 'lead.id', score: 'lead.score' },
				next: 'assign',
				onError: 'handoff',
			},
			{ id: 'assign', type: 'assign', groupId, next: 'bye' },
			{ id: 'closed', type: 'end', message: 'We are closed now; we will write to {{ email }}.' },
			{ id: 'handoff', type: 'transfer', message: 'A person will take it from here.' },
			{
				id: 'bye',
				type: 'end',
				message: 'Thanks, {{ name }}! Lead {{ lead_id }} (score {{ score }}) is with our team.',
			},
		],
	};
}

/** The visitor, in Node: a widget session and the public endpoints, as the widget calls them. */
async function visitor(workspaceId: string) {
	const call = async (method: string, path: string, body: unknown, session?: string) => {
		const res = await fetch(`${baseUrl}${path}`, {
			method,
			headers: {
				'Content-Type': 'application/json',
				Origin: 'https://shop.example',
				...(session ? { 'Parley-Session': session } : {}),
			},
			body: JSON.stringify(body),
		});
		return { status: res.status, body: (await res.json()) as Record<string, unknown> };
	};
	const started = await call('POST', `/widget/${workspaceId}/sessions`, {});
	const session = started.body.sessionToken as string;
	let conversationId = '';
	return {
		async say(text: string) {
			const clientMessageId = crypto.randomUUID();
			if (!conversationId) {
				const res = await call(
					'POST',
					`/widget/${workspaceId}/conversations`,
					{ message: { text, clientMessageId } },
					session,
				);
				expect(res.status).toBe(201);
				conversationId = (res.body.conversation as { id: string }).id;
			} else {
				const res = await call(
					'POST',
					`/widget/${workspaceId}/conversations/${conversationId}/messages`,
					{ text, clientMessageId },
					session,
				);
				expect(res.status).toBe(201);
			}
			return conversationId;
		},
	};
}

describe('a lead-qualification bot through the widget’s public endpoints', () => {
	it('asks, re-prompts, checks a CPF, branches on business hours, creates a deal, tags, calls the CRM, assigns, ends', async () => {
		const { workspaceId, token } = workspace(56);
		await putSettings(token, {
			locale: 'pt',
			businessHours: {
				enabled: true,
				timeZone: 'America/Sao_Paulo',
				weekly: Object.fromEntries(
					['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => [day, [{ start: '00:00', end: '24:00' }]]),
				),
				holidays: [],
			},
		});
		expect(
			(await api(baseUrl, token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Qualified'] })).status,
		).toBe(201);
		const group = await api(baseUrl, token, 'POST', '/v3/team/groups', { name: 'Sales team', memberIds: [] });
		const groupId = (group.body as { id: string }).id;
		const created = await api(baseUrl, token, 'POST', '/v3/bots', {
			name: 'Lead qualification',
			trigger: { kind: 'new_conversation' },
			channels: ['widget'],
			definition: leadBot(groupId),
		});
		expect(created.status, JSON.stringify(created.body)).toBe(201);
		const botId = (created.body as { id: string }).id;
		expect((await api(baseUrl, token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);

		const ana = await visitor(workspaceId);
		const conversationId = await ana.say('Hi, I want a quote');
		const last = async () => (await messageTexts(token, conversationId)).at(-1);
		const answer = async (text: string, next: string) => {
			await ana.say(text);
			await expect.poll(last, { interval: 200 }).toBe(next);
		};
		await expect.poll(last, { interval: 200 }).toBe('What is your name?');
		await answer('Ana Souza', 'Thanks Ana Souza! Your e-mail?');
		await answer('ana at example', 'That does not look like an e-mail. Your e-mail?');
		await answer('ana@example.com', 'Your CPF?');
		await answer('111.111.111-11', 'Your CPF?');
		await answer('529.982.247-25', 'Team size?');
		const before = seen.length;
		await ana.say('11+');
		await expect
			.poll(last, { interval: 200, timeout: 15_000 })
			.toBe('Thanks, Ana Souza! Lead L-77 (score 88) is with our team.');

		const crmCall = seen.slice(before).find((request) => request.path === '/leads');
		const deals = (await api(baseUrl, token, 'GET', '/v3/deals')).body as {
			data: Array<{
				id: string;
				name: string;
				value: number;
				currency: string;
				stage: { name: string };
				contactId: string;
			}>;
		};
		const [deal] = deals.data;
		expect(deal).toMatchObject({
			name: 'Ana Souza (11+)',
			value: 150_000,
			currency: 'BRL',
			stage: { name: 'Qualified' },
		});
		expect(crmCall).toMatchObject({
			method: 'POST',
			headers: { authorization: 'Bearer crm-secret' },
			body: { email: 'ana@example.com', cpf: '52998224725', deal: deal?.id },
		});
		const conversation = (await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}`)).body as {
			tags: string[];
			groupId: string;
			contactId: string;
		};
		expect(conversation).toMatchObject({ tags: ['lead'], groupId });
		const contact = (await api(baseUrl, token, 'GET', `/v3/contacts/${conversation.contactId}`)).body as Record<
			string,
			unknown
		>;
		expect(contact).toMatchObject({ name: 'Ana Souza', email: 'ana@example.com' });
		const runs = (await api(baseUrl, token, 'GET', `/v3/conversations/${conversationId}/bot-runs`)).body as {
			data: Array<{ status: string; log: Array<{ stepId: string; error: string | null }> }>;
		};
		expect(runs.data[0]?.status).toBe('finished');
		expect(runs.data[0]?.log.map((entry) => entry.stepId)).toEqual([
			'hello',
			'ask-name',
			'ask-email',
			'ask-email',
			'ask-cpf',
			'ask-cpf',
			'ask-size',
			'hours',
			'deal',
			'tag',
			'contact',
			'crm',
			'assign',
			'bye',
		]);
	});
});
