import { describe, expect, it } from 'vitest';
import {
	fillTemplateText,
	LIST_BUTTON,
	type MediaRef,
	messageBodies,
	numberedFallback,
	parseReplyId,
	replyId,
	splitText,
	templateBody,
	templatePlaceholders,
	whatsappText,
} from '../../src/engines/whatsapp/outgoing';
import type { AttachmentMeta, Interactive } from '../../src/model/messages';
import { WHATSAPP_LIMITS } from '../../src/model/whatsapp';

const TO = '+16505551234';
const byLink = (file: AttachmentMeta): MediaRef => ({ link: file.url });
const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: TO };

function file(name: string, contentType: string, size = 1000): AttachmentMeta {
	return { url: `https://files.test/${name}`, name, contentType, size };
}

function bodies(text: string, interactive: Interactive | null = null, attachments: AttachmentMeta[] = []) {
	return messageBodies(TO, { text, attachments, interactive }, byLink);
}

const buttons = (...labels: string[]): Interactive => ({
	type: 'buttons',
	buttons: labels.map((label) => ({ label })),
});

describe('whatsappText', () => {
	const cases: Array<[string, string, boolean]> = [
		['plain', 'plain', false],
		['*Hi* _there_', '*Hi* _there_', false],
		// Markers inside words are no formatting for Parley, and stay as written.
		['snake_case_name and 2*3*4', 'snake_case_name and 2*3*4', false],
		['see https://example.com/a.', 'see https://example.com/a.', true],
	];
	it.each(cases)('%j → %j (link: %s)', (input, text, hasLink) => {
		expect(whatsappText(input)).toEqual({ text, hasLink });
	});
});

describe('splitText', () => {
	it('keeps a text within the limit whole and cuts a longer one at a line break', () => {
		expect(splitText('short')).toEqual(['short']);
		const first = `${'a'.repeat(3000)}\n`;
		const second = 'b'.repeat(3000);
		expect(splitText(first + second)).toEqual(['a'.repeat(3000), second]);
		const pieces = splitText('x'.repeat(10_000));
		expect(pieces.map((p) => p.length)).toEqual([4096, 4096, 1808]);
	});
});

describe('messageBodies', () => {
	it('sends text with a link preview, then each file as the type WhatsApp shows it as', () => {
		const result = bodies('*Invoice*: https://acme.test/i', null, [
			file('photo.png', 'image/png'),
			file('huge.png', 'image/png', 6 * 1024 * 1024),
			file('clip.mp4', 'video/mp4'),
			file('note.ogg', 'audio/ogg'),
			file('invoice.pdf', 'application/pdf'),
		]);
		expect(result).toEqual([
			{ ...envelope, type: 'text', text: { body: '*Invoice*: https://acme.test/i', preview_url: true } },
			{ ...envelope, type: 'image', image: { link: 'https://files.test/photo.png' } },
			// Over WhatsApp's 5 MB image limit: it still reaches the customer, as a document.
			{
				...envelope,
				type: 'document',
				document: { link: 'https://files.test/huge.png', filename: 'huge.png' },
			},
			{ ...envelope, type: 'video', video: { link: 'https://files.test/clip.mp4' } },
			{ ...envelope, type: 'audio', audio: { link: 'https://files.test/note.ogg' } },
			{
				...envelope,
				type: 'document',
				document: { link: 'https://files.test/invoice.pdf', filename: 'invoice.pdf' },
			},
		]);
	});

	it('sends up to three short options as reply buttons whose ids name the option', () => {
		const [body, ...rest] = bodies('Pick _one_', buttons('Yes', 'No', 'Later'));
		expect(rest).toEqual([]);
		expect(body).toEqual({
			...envelope,
			type: 'interactive',
			interactive: {
				type: 'button',
				body: { text: 'Pick _one_' },
				action: {
					buttons: [
						{ type: 'reply', reply: { id: 'opt:0', title: 'Yes' } },
						{ type: 'reply', reply: { id: 'opt:1', title: 'No' } },
						{ type: 'reply', reply: { id: 'opt:2', title: 'Later' } },
					],
				},
			},
		});
	});

	it('sends more options, or a title over 20 characters, as a list', () => {
		const four = bodies('Which?', buttons('A', 'B', 'C', 'D'));
		expect(four[0]?.type).toBe('interactive');
		const long = bodies('Which?', buttons('Twenty-one characters', 'B'));
		for (const [result, titles] of [
			[four, ['A', 'B', 'C', 'D']],
			[long, ['Twenty-one characters', 'B']],
		] as const) {
			const [body] = result;
			if (body?.type !== 'interactive' || body.interactive.type !== 'list') throw new Error('not a list');
			expect(body.interactive.action.button).toBe(LIST_BUTTON);
			expect(body.interactive.action.sections[0]?.rows).toEqual(titles.map((title, i) => ({ id: `opt:${i}`, title })));
		}
	});

	it('sends a rating as a list of its digits', () => {
		const [body] = bodies('How did we do?', { type: 'rating', max: 5 });
		if (body?.type !== 'interactive' || body.interactive.type !== 'list') throw new Error('not a list');
		expect(body.interactive.action.sections[0]?.rows.map((r) => r.title)).toEqual(['1', '2', '3', '4', '5']);
	});

	it('falls back to numbered text beyond what a list carries, and past the body limits', () => {
		const long = 'x'.repeat(25);
		expect(bodies('Which?', buttons('A', long))).toEqual([
			{ ...envelope, type: 'text', text: { body: `Which?\n\n1. A\n2. ${long}` } },
		]);
		// A question too long for reply buttons (1024) but within a list's body (4096) goes as a list.
		const question = 'q'.repeat(WHATSAPP_LIMITS.buttonBody + 1);
		const [asList] = bodies(question, buttons('Yes', 'No'));
		expect(asList?.type === 'interactive' && asList.interactive.type).toBe('list');
		const tooLong = 'q'.repeat(WHATSAPP_LIMITS.listBody + 1);
		const fallback = bodies(tooLong, buttons('Yes', 'No'));
		expect(fallback.every((b) => b.type === 'text')).toBe(true);
		expect(fallback.at(-1)).toMatchObject({ text: { body: expect.stringMatching(/1\. Yes\n2\. No$/) } });
	});

	it('asks a data-entry question as plain text (the customer types the answer)', () => {
		expect(bodies('Your e-mail?', { type: 'input', input: 'email' })).toEqual([
			{ ...envelope, type: 'text', text: { body: 'Your e-mail?' } },
		]);
	});

	it('sends the buttons first and the files after them', () => {
		const result = bodies('Which file?', buttons('This'), [file('a.pdf', 'application/pdf')]);
		expect(result.map((b) => b.type)).toEqual(['interactive', 'document']);
	});
});

describe('reply ids', () => {
	it('round-trip, and refuse anything else', () => {
		expect(parseReplyId(replyId(0))).toBe(0);
		expect(parseReplyId(replyId(9))).toBe(9);
		for (const other of ['opt:', 'opt:x', 'opt:123', 'yes', '']) expect(parseReplyId(other)).toBeNull();
	});
});

describe('numberedFallback', () => {
	it('numbers the options from 1 under the question', () => {
		expect(numberedFallback('Pick', ['A', 'B'])).toBe('Pick\n\n1. A\n2. B');
	});
});

describe('templates', () => {
	it('builds a positional template body, and one without variables', () => {
		expect(templateBody(TO, { name: 'order_update', language: 'en_US', variables: ['Ada', '42'] })).toEqual({
			...envelope,
			type: 'template',
			template: {
				name: 'order_update',
				language: { code: 'en_US' },
				components: [
					{
						type: 'body',
						parameters: [
							{ type: 'text', text: 'Ada' },
							{ type: 'text', text: '42' },
						],
					},
				],
			},
		});
		expect(templateBody(TO, { name: 'hello_world', language: 'en', variables: [] })).toEqual({
			...envelope,
			type: 'template',
			template: { name: 'hello_world', language: { code: 'en' } },
		});
	});

	it('names the parameters of a NAMED template', () => {
		const body = templateBody(TO, {
			name: 'welcome',
			language: 'en',
			variables: ['Ada'],
			parameterNames: ['first_name'],
		});
		expect(body.type === 'template' && body.template.components).toEqual([
			{ type: 'body', parameters: [{ type: 'text', parameter_name: 'first_name', text: 'Ada' }] },
		]);
	});

	it('finds placeholders in order and fills the text the customer receives', () => {
		expect(templatePlaceholders('Hi {{1}}, code {{2}} for {{1}}')).toEqual(['1', '2']);
		expect(templatePlaceholders('Hi {{ first_name }}')).toEqual(['first_name']);
		expect(fillTemplateText('Hi {{1}}, code {{ 2 }}; {{3}}', { 1: 'Ada', 2: 'X1' })).toBe('Hi Ada, code X1; {{3}}');
	});
});
