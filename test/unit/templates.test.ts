import { describe, expect, it } from 'vitest';
import {
	checkTemplate,
	renderTemplate,
	renderTemplateSync,
	TemplateError,
	type TemplateInput,
} from '../../src/engines/templates';

// 2026-11-23 13:05 UTC is 10:05 in São Paulo (UTC-3, no daylight saving).
const NOW = Date.UTC(2026, 10, 23, 13, 5);

const input: TemplateInput = {
	contact: {
		id: 'ctc_1',
		name: 'Ana Souza',
		email: 'ana@example.com',
		phone: '+5511999998888',
		customFields: { plan: 'pro', seats: 12 },
	},
	conversation: { id: 'conv_1', channel: 'widget' },
	agent: { id: 'op_1', name: 'Rita' },
	variables: {
		evil: 'x","admin":true',
		order_id: 'A-1001',
		total: '1500.5',
		items: ['tent', 'stove'],
		answer: 'yes',
		contact: 'shadowed',
	},
	timeZone: 'America/Sao_Paulo',
	now: NOW,
};

const render = (source: string, over: Partial<TemplateInput> = {}) => renderTemplate(source, { ...input, ...over });

describe('templates', () => {
	it('substitutes every documented variable, the current date and time in the workspace time zone', async () => {
		const cases: [string, string][] = [
			['{{contact.name}}', 'Ana Souza'],
			['{{contact.phone}}', '+5511999998888'],
			['{{contact.email}}', 'ana@example.com'],
			['{{contact.custom_fields.plan}}', 'pro'],
			['{{conversation.id}}', 'conv_1'],
			['{{agent.name}}', 'Rita'],
			['{{current_date}}', '2026-11-23'],
			['{{current_time}}', '10:05'],
			['{{order_id}}', 'A-1001'],
			// A run's variable never hides a reserved name; `vars` still reaches it.
			['{{contact.name}} / {{vars.contact}}', 'Ana Souza / shadowed'],
		];
		for (const [source, expected] of cases) expect(await render(source), source).toBe(expected);
	});

	it('concatenates, computes, formats dates and picks conditional values with Liquid’s own filters and tags', async () => {
		const cases: [string, string][] = [
			['{{ contact.name | append: " (" | append: order_id | append: ")" }}', 'Ana Souza (A-1001)'],
			['{{ total | plus: 10 | times: 2 }}', '3021'],
			['{{ contact.custom_fields.seats | divided_by: 5 }}', '2.4'],
			['{{ contact.custom_fields.seats | divided_by: 5 | floor }}', '2'],
			['{{ now | date: "%d/%m/%Y %H:%M" }}', '23/11/2026 10:05'],
			['{{ "2026-12-25T12:00:00Z" | date: "%Y-%m-%d" }}', '2026-12-25'],
			['{% if answer == "yes" %}Great!{% else %}No problem.{% endif %}', 'Great!'],
			['{{ items | join: ", " | upcase }}', 'TENT, STOVE'],
			['{{ contact.name | split: " " | first }}', 'Ana'],
			// In a JSON body, `json` quotes and escapes: an answer cannot add fields.
			['{"name": {{ vars.evil | json }}}', '{"name": "x\\",\\"admin\\":true"}'],
		];
		for (const [source, expected] of cases) expect(await render(source), source).toBe(expected);
	});

	it('renders a missing variable empty, unless `default` says otherwise', async () => {
		expect(await render('Hi {{nickname}}!')).toBe('Hi !');
		expect(await render('Hi {{ nickname | default: "there" }}!')).toBe('Hi there!');
		expect(await render('{{agent.name}}', { agent: null })).toBe('');
		expect(await render('{{contact.email}}', { contact: null })).toBe('');
	});

	it('refuses a broken template or an unknown filter when checked, with the reason', async () => {
		expect(checkTemplate('Hello {{contact.name}}')).toBeNull();
		expect(checkTemplate('{% if x %}unclosed')).toMatch(/if/);
		expect(checkTemplate('{{ contact.name | shout }}')).toMatch(/shout/);
		expect(checkTemplate('x'.repeat(20_001))).toMatch(/20000/);
		await expect(render('{{ x | shout }}')).rejects.toThrow(TemplateError);
	});

	it('cannot load files, read inherited properties or run away', async () => {
		await expect(render('{% include "secrets" %}')).rejects.toThrow(TemplateError);
		expect(await render('{{ contact.constructor }}{{ contact.__proto__ }}{{ vars.hasOwnProperty }}')).toBe('');
		// A loop that would build a huge string stops at the memory or time limit instead of stalling.
		const bomb =
			'{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}';
		await expect(render(bomb)).rejects.toThrow(TemplateError);
		// Nested loops multiply (13 million iterations with four of 60): refused by their shape, sync or not.
		const nested = '{% for i in (1..60) %}{% for j in (1..60) %}x{% endfor %}{% endfor %}';
		expect(checkTemplate(nested)).toMatch(/nested/);
		await expect(render(nested)).rejects.toThrow(/nested/);
		expect(() => renderTemplateSync(nested, input)).toThrow(/nested/);
		expect(checkTemplate('{% liquid\nfor i in (1..9)\necho i\nendfor %}')).toMatch(/liquid tag/);
		// One long loop stops at the memory limit.
		await expect(render('{% for i in (1..5000000) %}x{% endfor %}')).rejects.toThrow(TemplateError);
	});
});
