import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, expectError, seedOperator, seedWorkspace } from './factories';

async function preview(token: string, body: unknown) {
	return api(token, 'POST', '/v3/templates/preview', body);
}

async function rendered(token: string, body: unknown): Promise<string> {
	const res = await preview(token, body);
	expect(res.status, await res.clone().text()).toBe(200);
	return ((await res.json()) as { text: string }).text;
}

describe('POST /v3/templates/preview', () => {
	it('renders variables, the contact, the agent and filters', async () => {
		const { token } = await seedWorkspace();
		const text = await rendered(token, {
			template:
				'Hi {{ contact.name | default: "there" }}, order {{ order | upcase }} ({{ vars.order }}) by {{ agent.name }}',
			variables: { order: 'a-1' },
			contact: { name: 'Ana Souza', email: 'ana@example.com' },
			agent: { name: 'Marta' },
		});
		expect(text).toBe('Hi Ana Souza, order A-1 (a-1) by Marta');
		expect(await rendered(token, { template: '{{ name | upcase }}', variables: { name: 'ana' } })).toBe('ANA');
	});

	it('lets `default` fill in what the sample leaves out', async () => {
		const { token } = await seedWorkspace();
		expect(await rendered(token, { template: 'Hi {{ contact.name | default: "there" }}!' })).toBe('Hi there!');
		expect(await rendered(token, { template: 'Hi {{ contact.name | default: "there" }}!', contact: {} })).toBe(
			'Hi there!',
		);
	});

	it("formats dates in the workspace's business-hours time zone", async () => {
		const { token } = await seedWorkspace();
		const template = '{{ "2030-01-15T12:00:00Z" | date: "%d/%m %H:%M" }}';
		expect(await rendered(token, { template })).toBe('15/01 12:00');
		const zone = await api(token, 'PUT', '/v3/widget/settings', { businessHours: { timeZone: 'America/Sao_Paulo' } });
		expect(zone.status).toBe(200);
		expect(await rendered(token, { template })).toBe('15/01 09:00');
	});

	it('refuses an unknown filter and a broken tag at json.template, changing nothing', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const before = await env.DB.prepare('SELECT count(*) AS n FROM bots WHERE workspace_id = ?')
			.bind(workspaceId)
			.first('n');
		const unknown = await expectError(await preview(token, { template: '{{ name | nosuchfilter }}' }), 422);
		expect(unknown.message).toMatch(/^json\.template: .*nosuchfilter/);
		const broken = await expectError(await preview(token, { template: 'Hi {% if %}' }), 422);
		expect(broken.message).toMatch(/^json\.template: /);
		const nested = await expectError(
			await preview(token, { template: '{% for a in x %}{% for b in a %}{% endfor %}{% endfor %}' }),
			422,
		);
		expect(nested.message).toContain('json.template');
		expect(
			await env.DB.prepare('SELECT count(*) AS n FROM bots WHERE workspace_id = ?').bind(workspaceId).first('n'),
		).toBe(before);
	});

	it('refuses an unknown field and a template over the limit', async () => {
		const { token } = await seedWorkspace();
		const extra = await expectError(await preview(token, { template: 'Hi', sample: true }), 422);
		expect(extra.message).toContain('sample');
		const long = await expectError(await preview(token, { template: 'x'.repeat(20_001) }), 422);
		expect(long.message).toContain('json.template');
	});

	it('refuses nested loops hidden from a text scan (an endfor in a comment or raw text), rendering nothing', async () => {
		const { token } = await seedWorkspace();
		for (const hide of ['{% comment %}{% endfor %}{% endcomment %}', '{% raw %}{% endfor %}{% endraw %}']) {
			const template = `{% for a in (1..3) %}${hide}{% for b in (1..3) %}x{% endfor %}{% endfor %}`;
			const body = await expectError(await preview(token, { template }), 422);
			expect(body.message).toMatch(/^json\.template: loops may not be nested/);
			expect(body).not.toHaveProperty('text');
		}
	});

	it('refuses a template whose output passes 100,000 characters, while it renders', async () => {
		const { token } = await seedWorkspace();
		// Once 199 MB in 2 seconds: 10,000 times 19,900 characters.
		const template = `{% for i in (1..10000) %}${'x'.repeat(19_900)}{% endfor %}`;
		const body = await expectError(await preview(token, { template }), 422);
		expect(body.message).toBe('json.template: the output is longer than 100000 characters');
		// A loop that writes nothing over a long range stops at its step bound.
		const spin = await expectError(await preview(token, { template: '{% for i in (1..50000) %}{% endfor %}' }), 422);
		expect(spin.message).toMatch(/^json\.template: the loops run more than 20000 steps/);
		expect(await rendered(token, { template: `{% for i in (1..10) %}${'x'.repeat(10_000)}{% endfor %}` })).toHaveLength(
			100_000,
		);
	});

	it('is for admins only', async () => {
		const { workspaceId } = await seedWorkspace();
		const agent = await seedOperator(workspaceId, ['messages:send']);
		await expectError(await preview(agent.token, { template: 'Hi' }), 403);
		await expectError(await api(null, 'POST', '/v3/templates/preview', { template: 'Hi' }), 401);
	});
});
