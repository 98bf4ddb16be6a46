import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { mailHtmlText, sanitizeMailHtml } from '../../src/engines/mail/html';
import { gmailMail, newsletterMail, outlookMail } from '../mail-samples';

const none = { inlineImages: {} };

describe('sanitizeMailHtml: what never survives', () => {
	const cases: [string, string, RegExp][] = [
		['a script', '<p>hi</p><script>alert(1)</script>', /script|alert/],
		['an event handler', '<p onclick="steal()" onmouseover="x()">hi</p>', /onclick|onmouseover|steal/],
		['a javascript: link', '<a href="javascript:alert(1)">x</a>', /javascript/],
		['a data: link', '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', /data:/],
		['an iframe', '<iframe src="https://evil.example"></iframe><p>x</p>', /iframe|evil/],
		['a form', '<form action="https://evil.example"><input name="pw"></form>', /form|input|evil/],
		['a stylesheet', '<style>body{background:url(https://t.example/x)}</style><p>x</p>', /style|t\.example/],
		[
			'a style that fetches',
			'<p style="background-image:url(https://t.example/px.gif);color:red">x</p>',
			/url|t\.example/,
		],
		['an SVG data image', '<img src="data:image/svg+xml;base64,PHN2Zz4=">', /svg/],
		['a protocol-relative image', '<img src="//t.example/x.gif">', /t\.example/],
		["a class (it could borrow the console's styles)", '<p class="btn-danger">x</p>', /class/],
		['a meta refresh', '<meta http-equiv="refresh" content="0;url=https://evil.example"><p>x</p>', /meta|evil/],
	];
	it.each(cases)('%s', (_name, html, forbidden) => {
		expect(sanitizeMailHtml(html, none).html).not.toMatch(forbidden);
	});
});

describe('sanitizeMailHtml: what stays', () => {
	it('keeps text, tables, links (opened apart) and plain styles', () => {
		const { html } = sanitizeMailHtml(
			'<table width="100%"><tr><td align="center" style="color: #333; font-weight: bold">Order <a href="https://acme.example/o/1">#1</a></td></tr></table>',
			none,
		);
		expect(html).toBe(
			'<table width="100%"><tr><td align="center" style="color:#333;font-weight:bold">Order <a href="https://acme.example/o/1" target="_blank" rel="noopener noreferrer nofollow">#1</a></td></tr></table>',
		);
	});

	it('holds a remote image back in data-remote-src and counts it', () => {
		const result = sanitizeMailHtml('<p><img src="https://t.shop.example/open.gif" alt="logo"></p>', none);
		expect(result.html).toBe('<p><img alt="logo" data-remote-src="https://t.shop.example/open.gif" /></p>');
		expect(result.remoteImages).toBe(1);
	});

	it('points a cid: image at the stored file, and drops one it does not know', () => {
		const result = sanitizeMailHtml('<img src="cid:Photo1@Mail"><img src="cid:missing@mail">', {
			inlineImages: { 'photo1@mail': 'https://api.example/v3/files/fil_1' },
		});
		expect(result.html).toBe('<img src="https://api.example/v3/files/fil_1" /><img />');
		expect(result.remoteImages).toBe(0);
	});

	it('keeps a small raster data: image', () => {
		const src = 'data:image/png;base64,iVBORw0KGgo=';
		expect(sanitizeMailHtml(`<img src="${src}">`, none).html).toBe(`<img src="${src}" />`);
	});
});

describe('sanitizeMailHtml: quotes marked for folding', () => {
	const cases: [string, string, RegExp][] = [
		['Gmail', gmailMail(), /<div data-parley-quote="block">/],
		['Outlook on the web', outlookMail(), /<div dir="ltr" data-parley-quote="from-here">/],
		[
			'Apple Mail',
			'<div>Yes</div><blockquote type="cite">old</blockquote>',
			/<blockquote data-parley-quote="block">old/,
		],
		[
			'Outlook for Windows',
			'<p>Yes</p><div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0in 0in 0in"><p><b>From:</b> x</p></div>',
			/data-parley-quote="from-here"/,
		],
		['Thunderbird', '<p>Yes</p><div class="moz-cite-prefix">On … wrote:</div>', /<div data-parley-quote="from-here">/],
	];
	it.each(cases)('%s', async (_name, input, expected) => {
		const html = input.startsWith('<') ? input : ((await PostalMime.parse(input)).html ?? '');
		const result = sanitizeMailHtml(html, none);
		expect(result.html).toMatch(expected);
		expect(result.quoted).toBe(true);
	});

	it('marks nothing in a mail without a quote, and loads no tracking pixel', async () => {
		const result = sanitizeMailHtml((await PostalMime.parse(newsletterMail())).html ?? '', none);
		expect(result.quoted).toBe(false);
		expect(result.remoteImages).toBe(1);
		expect(result.html).not.toMatch(/ src=/);
	});
});

describe('mailHtmlText', () => {
	const cases: [string, string, string][] = [
		['blocks and breaks become lines', '<div>Hello<br>there</div><p>Second</p>', 'Hello\nthere\n\nSecond'],
		[
			'a quote starts its own line',
			'<div>Yes</div><div class="gmail_quote">On Mon, Acme wrote:<blockquote>old</blockquote></div>',
			'Yes\n\nOn Mon, Acme wrote:\nold',
		],
		[
			'entities decoded, scripts and styles dropped',
			'<style>p{}</style><p>a &amp; b &lt;c&gt; &quot;d&quot;&nbsp;e</p><script>x()</script>',
			'a & b <c> "d" e',
		],
	];
	it.each(cases)('%s', (_name, html, text) => {
		expect(mailHtmlText(html)).toBe(text);
	});
});
