import { describe, expect, it } from 'vitest';
import {
	checkTemplate,
	MAX_RENDERED_LENGTH,
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

const render = (source: string, over: Partial<TemplateInput> = {}, maxLength?: number) =>
	renderTemplate(source, { ...input, ...over }, maxLength);

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
		// One long loop stops at the memory limit.
		await expect(render('{% for i in (1..5000000) %}x{% endfor %}')).rejects.toThrow(TemplateError);
	});
});

// Loops decided from liquidjs's parse tree: an end tag hidden where the parser never reads it as one (a comment,
// raw text, an inline comment) hides nothing, and text that merely looks like a loop is no loop.
const nestedTricks: [string, string][] = [
	[
		'for, endfor in a comment',
		'{% for a in (1..3) %}{% comment %}{% endfor %}{% endcomment %}{% for b in (1..3) %}x{% endfor %}{% endfor %}',
	],
	[
		'for, endfor in raw',
		'{% for a in (1..3) %}{% raw %}{% endfor %}{% endraw %}{% for b in (1..3) %}x{% endfor %}{% endfor %}',
	],
	[
		'tablerow, endtablerow in a comment',
		'{% tablerow a in (1..3) %}{% comment %}{% endtablerow %}{% endcomment %}{% tablerow b in (1..3) %}x{% endtablerow %}{% endtablerow %}',
	],
	[
		'tablerow, endfor in raw',
		'{% tablerow a in (1..3) %}{% raw %}{% endfor %}{% endraw %}{% for b in (1..3) %}x{% endfor %}{% endtablerow %}',
	],
	[
		'for, endtablerow in raw',
		'{% for a in (1..3) %}{% raw %}{% endtablerow %}{% endraw %}{% tablerow b in (1..3) %}x{% endtablerow %}{% endfor %}',
	],
	[
		'a loop in a liquid tag in a loop',
		'{% for a in (1..3) %}{% liquid for b in (1..3)\n echo "x"\n endfor %}{% endfor %}',
	],
	['two loops in one liquid tag', '{% liquid for a in (1..3)\n for b in (1..3)\n echo "x"\n endfor\n endfor %}'],
	[
		'endfor in a comment in a liquid tag',
		'{% liquid for a in (1..3)\n comment\n endfor\n endcomment\n for b in (1..3)\n echo "x"\n endfor\n endfor %}',
	],
	[
		'a loop in a for’s else',
		'{% for a in x %}{% else %}{% for b in (1..3) %}{% for c in (1..3) %}x{% endfor %}{% endfor %}{% endfor %}',
	],
	['a loop in an if', '{% for a in (1..3) %}{% if true %}{% for b in (1..3) %}x{% endfor %}{% endif %}{% endfor %}'],
	[
		'a loop in an elsif',
		'{% for a in (1..3) %}{% if false %}{% elsif true %}{% for b in (1..3) %}x{% endfor %}{% endif %}{% endfor %}',
	],
	[
		'a loop in an unless',
		'{% for a in (1..3) %}{% unless false %}{% for b in (1..3) %}x{% endfor %}{% endunless %}{% endfor %}',
	],
	[
		'a loop in a case',
		'{% for a in (1..3) %}{% case 1 %}{% when 1 %}{% for b in (1..3) %}x{% endfor %}{% endcase %}{% endfor %}',
	],
	[
		'a loop in a capture',
		'{% for a in (1..3) %}{% capture c %}{% for b in (1..3) %}x{% endfor %}{% endcapture %}{% endfor %}',
	],
];

describe('template structure', () => {
	it.each(nestedTricks)('refuses nested loops however they hide: %s', async (_, source) => {
		expect(checkTemplate(source)).toMatch(/nested/);
		await expect(render(source)).rejects.toThrow(/nested/);
		expect(() => renderTemplateSync(source, input)).toThrow(/nested/);
	});

	it('counts loops wherever they are, hidden end tags or not', () => {
		const eleven = Array.from({ length: 11 }, (_, i) =>
			i % 2
				? `{% for a in (1..2) %}{% comment %}{% endfor %}{% endcomment %}{% endfor %}`
				: '{% tablerow b in (1..2) %}{% endtablerow %}',
		).join('');
		expect(checkTemplate(eleven)).toMatch(/more than 10 loops/);
		const ten = Array.from({ length: 10 }, () => '{% liquid for a in (1..2)\n echo a\n endfor %}').join('');
		expect(checkTemplate(ten)).toBeNull();
	});

	it('reads what only looks like a loop as the text it is', async () => {
		const cases: [string, string][] = [
			['{% raw %}{% for a in x %}{% for b in y %}{% endraw %}!', '{% for a in x %}{% for b in y %}!'],
			['{% comment %}{% for a in x %}{% for b in y %}{% endcomment %}!', '!'],
			['{% # for a in x %}{% for b in (1..2) %}{{ b }}{% endfor %}', '12'],
			['{% liquid for b in (1..3)\n echo b\n endfor %}', '123'],
		];
		for (const [source, expected] of cases) {
			expect(checkTemplate(source), source).toBeNull();
			expect(await render(source), source).toBe(expected);
		}
	});

	it('refuses the tags that load or stitch in other templates, whose file names are templates of their own', () => {
		for (const source of [
			'{% include "secrets" %}',
			'{% render "{{ name }}" %}',
			'{% layout none %}{% for a in (1..3) %}x{% endfor %}',
			'{% block b %}x{% endblock %}',
		]) {
			expect(checkTemplate(source), source).toMatch(/not allowed/);
		}
	});
});

describe('template output', () => {
	it('refuses a render that writes more than its bound, counted while it renders', async () => {
		// The 199 MB template: 10,000 times 19,900 characters.
		const huge = `{% for i in (1..10000) %}${'x'.repeat(19_900)}{% endfor %}`;
		await expect(render(huge)).rejects.toThrow(/longer than 100000 characters/);
		expect(() => renderTemplateSync(huge, input)).toThrow(/longer than 100000 characters/);
		expect(await render(`${'x'.repeat(9_999)}{{ "y" }}`, {}, 10_000)).toHaveLength(10_000);
		await expect(render(`${'x'.repeat(10_000)}{{ "y" }}`, {}, 10_000)).rejects.toThrow(/longer than 10000 characters/);
		// Data counts as much as the template's own text.
		const big = 'y'.repeat(MAX_RENDERED_LENGTH);
		expect(await render('{{ big }}', { variables: { big } })).toHaveLength(MAX_RENDERED_LENGTH);
		await expect(render('{{ big }}!', { variables: { big } })).rejects.toThrow(TemplateError);
		// Text captured into a variable counts too: doubling a capture cannot build a huge string unseen.
		const doubling = '{% for i in (1..20) %}{% capture s %}{{ s }}{{ s }}x{% endcapture %}{% endfor %}{{ s | size }}';
		await expect(render(doubling)).rejects.toThrow(/longer than/);
	});

	it('stops a loop that writes nothing but spins, over a range or an array from the data', async () => {
		// Counted, not timed: past 20,000 steps (an iteration of an empty body is one), whatever the clock says.
		const items = Array.from({ length: 30_000 }, (_, i) => i);
		await expect(render('{% for x in items %}{% endfor %}', { variables: { items } })).rejects.toThrow(
			/more than 20000 steps/,
		);
		await expect(
			render('{% for x in items %}{% assign y = x %}{% endfor %}', { variables: { items } }),
		).rejects.toThrow(TemplateError);
		await expect(render('{% tablerow x in items %}{% endtablerow %}', { variables: { items } })).rejects.toThrow(
			TemplateError,
		);
		await expect(render('{% for i in (1..30000) %}{% endfor %}')).rejects.toThrow(/more than 20000 steps/);
		await expect(render('{% for i in (1..5000000) %}{% endfor %}')).rejects.toThrow(TemplateError);
		// A loop of a sensible size runs.
		expect(await render('{% for x in items limit: 1000 %}{% endfor %}done', { variables: { items } })).toBe('done');
	});
});
