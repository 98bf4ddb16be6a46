// The order-to-conversation flow end to end on the one `wrangler dev` of global-setup.ts (HTTPS_ONLY
// off, loopback allowed): an order system signs its call to a scenario's webhook, the real scenario-runs
// Queue runs it (contact, conversation, message, deal, and a call to the order system's local HTTP server),
// and the workspace's outbound webhook tells a local receiver the run ended, signed, checked with svix.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Signer } from 'standardwebhooks';
import { Webhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, workspace } from './harness';
import { baseUrl } from './widget-page';

interface Received {
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
}

let server: Server;
let local = '';
const received: Received[] = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk) => {
			body += chunk;
		});
		req.on('end', () => {
			received.push({ path: req.url ?? '/', headers: req.headers, body });
			res.writeHead(req.url?.startsWith('/orders/') ? 200 : 204, { 'Content-Type': 'application/json' });
			res.end(req.url?.startsWith('/orders/') ? JSON.stringify({ erp: { id: 'ERP-1042' } }) : '');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Standard Webhooks headers for `body`, as a sender signs them with the standard's own library. */
function signed(secret: string, id: string, body: string) {
	const at = new Date();
	const signature = new Signer(secret).sign(id, at, body);
	return {
		'webhook-id': id,
		'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
		'webhook-signature': signature,
	};
}

describe('an order system’s signed webhook, run as a scenario, told back by a signed outbound webhook', () => {
	it('finds or creates the contact, opens a conversation, says so, sells, calls the order system, and reports', async () => {
		const { token } = workspace(59);
		const call = async (method: string, path: string, body?: unknown) => {
			const res = await api(baseUrl, token, method, path, body);
			expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
			return res.body as Record<string, unknown>;
		};
		await call('POST', '/v3/funnels', { name: 'Orders', stages: ['Paid', 'Shipped'] });
		const endpoint = await call('POST', '/v3/webhooks', { url: `${local}/parley`, events: ['scenario.run_ended'] });
		const scenario = await call('POST', '/v3/scenarios', {
			name: 'Order to conversation',
			definition: {
				start: 'find',
				steps: [
					{
						id: 'find',
						type: 'find_contact',
						by: 'email',
						value: '{{ email }}',
						variable: 'contact',
						next: 'talk',
						onNotFound: 'create',
					},
					{
						id: 'create',
						type: 'create_contact',
						name: '{{ name }}',
						email: '{{ email }}',
						variable: 'contact',
						next: 'talk',
					},
					{
						id: 'talk',
						type: 'create_conversation',
						contact: '{{ contact.id }}',
						variable: 'conversation',
						next: 'tell',
					},
					{
						id: 'tell',
						type: 'send_message',
						conversation: '{{ conversation.id }}',
						text: 'Order {{ orderId }} has shipped!',
						next: 'deal',
					},
					{
						id: 'deal',
						type: 'create_deal',
						contact: '{{ contact.id }}',
						funnel: 'Orders',
						stage: 'Shipped',
						name: 'Order {{ orderId }}',
						value: '{{ total }}',
						variable: 'deal',
						next: 'sync',
					},
					{
						id: 'sync',
						type: 'http_request',
						method: 'POST',
						url: `${local}/orders/{{ orderId }}`,
						body: '{"deal": {{ deal.id | json }}}',
						response: { erp_id: 'erp.id' },
					},
				],
			},
		});
		await call('POST', `/v3/scenarios/${scenario.id}/publish`);
		const hook = await call('POST', `/v3/scenarios/${scenario.id}/webhooks`, { name: 'Shop' });

		const body = JSON.stringify({ orderId: '1042', name: 'Ada', email: 'ada@shop.example', total: '99.90' });
		const res = await fetch(`${baseUrl}/v3/workflows/webhook/${hook.id}`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', ...signed(hook.secret as string, 'order-1042', body) },
			body,
		});
		expect(res.status).toBe(202);
		const { runId } = (await res.json()) as { runId: string };

		let run: { status: string; variables: Record<string, { id?: string } | string> } = { status: '', variables: {} };
		await expect
			.poll(
				async () => {
					run = (await call('GET', `/v3/scenarios/${scenario.id}/runs/${runId}`)) as typeof run;
					return run.status;
				},
				{ timeout: 20_000, interval: 250 },
			)
			.toBe('succeeded');
		expect(run.variables.erp_id).toBe('ERP-1042');
		const order = received.find((r) => r.path === '/orders/1042');
		expect(JSON.parse(order?.body ?? '{}')).toEqual({ deal: (run.variables.deal as { id: string }).id });
		const conversationId = (run.variables.conversation as { id: string }).id;
		const messages = (await call('GET', `/v3/conversations/${conversationId}/messages`)) as {
			data: Array<{ text: string }>;
		};
		expect(messages.data.map((m) => m.text)).toContain('Order 1042 has shipped!');

		// The run's end reaches the receiver, signed with the endpoint's secret: svix says so.
		let report: Received | undefined;
		await expect
			.poll(
				() => {
					report = received.find((r) => r.path === '/parley' && r.body.includes(runId));
					return report !== undefined;
				},
				{ timeout: 20_000, interval: 250 },
			)
			.toBe(true);
		const delivered = report as Received;
		const headers = Object.fromEntries(Object.entries(delivered.headers).map(([k, v]) => [k, String(v)]));
		expect(() => new Webhook(endpoint.secret as string).verify(delivered.body, headers)).not.toThrow();
		expect(JSON.parse(delivered.body)).toMatchObject({
			type: 'scenario.run_ended',
			data: { runId, status: 'succeeded', trigger: 'webhook', scenario: { id: scenario.id } },
		});
	});
});
