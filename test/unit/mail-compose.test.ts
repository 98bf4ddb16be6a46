import { describe, expect, it } from 'vitest';
import {
	type ComposeInput,
	composeMail,
	escapeHtml,
	formattedHtml,
	mailSubject,
	threadingHeaders,
	UnsafeAddress,
} from '../../src/engines/mail/compose';
import { headerText, isMailAddress, isSafeHeaderValue } from '../../src/engines/mail/header-safety';

const base: ComposeInput = {
	kind: 'reply',
	from: { address: 'support@acme.example', name: 'Acme support' },
	to: 'ada@example.com',
	replyTo: 'reply+0123456789abcdefghjkmnpqrs.0123456789abcdefghjkmnpqrs@acme.example',
	conversationSubject: 'My order',
	workspaceName: 'Acme',
	messages: [{ author: 'Grace', text: 'Hello *Ada*', interactive: null, files: [] }],
	threadIds: ['first@mail.example.com'],
	stopUrl: null,
	automatic: false,
};

describe('headerText', () => {
	const cases: Array<[string, string]> = [
		['Ada Lovelace', 'Ada Lovelace'],
		['Ada\r\nBcc: everyone@example.com', 'Ada Bcc: everyone@example.com'],
		['Ada\nSubject: pwned', 'Ada Subject: pwned'],
		['tab\there', 'tab here'],
		['nul\u0000byte', 'nul byte'],
		['line\u2028separator', 'line separator'],
		['C1\u0085next line', 'C1 next line'],
		['bidi \u202Etxt.exe', 'bidi txt.exe'],
		['  spaced   out  ', 'spaced out'],
		['\r\n', ''],
	];
	it.each(cases)('%j becomes %j', (value, expected) => {
		const safe = headerText(value);
		expect(safe).toBe(expected);
		expect(safe).not.toMatch(/[\r\n]/);
	});

	it('cuts to the limit without splitting a character', () => {
		expect(headerText('😀'.repeat(300), 10)).toBe('😀'.repeat(10));
	});
});

describe('isMailAddress', () => {
	const cases: Array<[string, boolean]> = [
		['ada@example.com', true],
		['first.last+tag@mail.example.co.uk', true],
		['ada@example.com\r\nBcc: x@y.z', false],
		['Ada <ada@example.com>', false],
		['ada@example.com, eve@example.com', false],
		['ada@localhost', false],
		['.ada@example.com', false],
		['a..da@example.com', false],
		['"ada"@example.com', false],
		['', false],
	];
	it.each(cases)('%j: %s', (address, ok) => expect(isMailAddress(address)).toBe(ok));
});

describe('composeMail', () => {
	it('builds a text part and an HTML part from the same formatting, the HTML escaped', () => {
		const mail = composeMail({
			...base,
			messages: [
				{
					author: 'Grace <script>',
					text: 'Hi *there* <img src=x onerror=alert(1)> & see https://acme.example/faq',
					interactive: null,
					files: [],
				},
			],
		});
		expect(mail.text).toContain(
			'Grace <script>:\nHi *there* <img src=x onerror=alert(1)> & see https://acme.example/faq',
		);
		expect(mail.html).toContain('<strong>Grace &lt;script&gt;</strong>');
		expect(mail.html).toContain('Hi <strong>there</strong> &lt;img src=x onerror=alert(1)&gt; &amp; see ');
		expect(mail.html).toContain('<a href="https://acme.example/faq">https://acme.example/faq</a>');
		expect(mail.html).not.toMatch(/<img|<script/);
	});

	it('lists buttons as numbered choices the customer answers by replying', () => {
		const mail = composeMail({
			...base,
			messages: [
				{
					author: 'Acme',
					text: 'Which plan?',
					interactive: { type: 'buttons', buttons: [{ label: 'Free' }, { label: 'Pro <b>' }] },
					files: [],
				},
			],
		});
		expect(mail.text).toContain('1. Free\n2. Pro <b>\nReply with the number or the text of your choice.');
		expect(mail.html).toContain('<ol style="margin:0 0 8px"><li>Free</li><li>Pro &lt;b&gt;</li></ol>');
	});

	it('names attached files and links the others', () => {
		const mail = composeMail({
			...base,
			messages: [
				{
					author: 'Grace',
					text: 'Files',
					interactive: null,
					files: [
						{ name: 'small.pdf', attached: true },
						{ name: 'big "one".pdf', attached: false, url: 'https://p.example/mail/files/t"k' },
					],
				},
			],
		});
		expect(mail.text).toContain('[attached: small.pdf]\n[big "one".pdf: https://p.example/mail/files/t"k]');
		expect(mail.html).toContain('<a href="https://p.example/mail/files/t&quot;k">big &quot;one&quot;.pdf</a>');
	});

	it('threads under the conversation’s earlier mail', () => {
		const mail = composeMail({ ...base, threadIds: ['a@x.example', 'b@x.example'] });
		expect(mail.headers['In-Reply-To']).toBe('<b@x.example>');
		expect(mail.headers.References).toBe('<a@x.example> <b@x.example>');
		expect(mail.subject).toBe('Re: My order');
		expect(mail.replyTo).toBe(base.replyTo);
	});

	it('marks automatic mail, and only it, as auto-generated', () => {
		expect(composeMail(base).headers['Auto-Submitted']).toBeUndefined();
		expect(composeMail({ ...base, automatic: true }).headers['Auto-Submitted']).toBe('auto-generated');
	});

	it('gives a continuation its one-click stop link, in the body and (https) in List-Unsubscribe', () => {
		const stopUrl = 'https://parley.example/mail/stop/abc.def';
		const mail = composeMail({ ...base, kind: 'continuation', conversationSubject: null, stopUrl, automatic: true });
		expect(mail.headers['List-Unsubscribe']).toBe(`<${stopUrl}>`);
		expect(mail.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
		expect(mail.text).toContain(stopUrl);
		expect(mail.html).toContain(`href="${stopUrl}"`);
		expect(mail.subject).toBe('New reply from Acme');
		// A local http origin: the provider takes no http link in the header, so only the body has it.
		const local = composeMail({ ...base, kind: 'continuation', stopUrl: 'http://localhost:8787/mail/stop/x' });
		expect(local.headers['List-Unsubscribe']).toBeUndefined();
	});

	it('never lets a line break from a name or a subject into a header', () => {
		const hostile = 'x\r\nBcc: all@example.com\nX-Evil: 1';
		const mail = composeMail({
			...base,
			from: { ...base.from, name: hostile },
			conversationSubject: hostile,
			workspaceName: hostile,
			threadIds: ['ok@x.example', 'bad\r\nX-Evil: 1@x.example', '<x>@y.example'],
		});
		for (const value of [mail.from.name, mail.subject, mail.to, mail.replyTo, ...Object.values(mail.headers)]) {
			expect(value).not.toMatch(/[\r\n]/);
			expect(isSafeHeaderValue(value)).toBe(true);
		}
		expect(mail.subject).toBe('Re: x Bcc: all@example.com X-Evil: 1');
		expect(mail.headers.References).toBe('<ok@x.example>');
	});

	it('refuses an address that is not plainly one', () => {
		expect(() => composeMail({ ...base, to: 'ada@example.com\r\nBcc: eve@example.com' })).toThrow(UnsafeAddress);
		expect(() => composeMail({ ...base, from: { ...base.from, address: 'Eve <eve@x.example>' } })).toThrow(
			UnsafeAddress,
		);
	});
});

describe('threadingHeaders', () => {
	it('keeps the newest ids that fit the provider’s 2,048 bytes', () => {
		const ids = Array.from({ length: 100 }, (_, i) => `${'m'.repeat(40)}${i}@mail.example.com`);
		const { References = '', 'In-Reply-To': inReplyTo } = threadingHeaders(ids);
		expect(new TextEncoder().encode(References).byteLength).toBeLessThanOrEqual(2048);
		expect(References.endsWith(`<${ids[99]}>`)).toBe(true);
		expect(inReplyTo).toBe(`<${ids[99]}>`);
		expect(threadingHeaders([])).toEqual({});
	});
});

describe('mailSubject', () => {
	it('keeps an existing Re:, and falls back to the workspace', () => {
		expect(mailSubject('reply', 'RE: Help', 'Acme')).toBe('RE: Help');
		expect(mailSubject('reply', null, 'Acme')).toBe('A message from Acme');
		expect(mailSubject('reply', '   ', '')).toBe('A message from us');
	});
});

describe('escapeHtml and formattedHtml', () => {
	it('escape every character HTML gives a meaning to', () => {
		expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
			'&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
		);
		expect(formattedHtml('_a_\nb')).toBe('<em>a</em><br>b');
	});
});
