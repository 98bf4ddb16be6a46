import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { replyLocalPart } from '../src/auth/mail-reply-token';
import { deliver, lastMail, mailWorkspace } from './email-inbound-helpers';
import { api, seedWorkspace, startVisitor, startVisitorConversation } from './factories';
import { PNG_1X1 } from './images';
import { gmailMail, mailWithFiles } from './mail-samples';

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
const from = 'ana.souza@gmail.com';

interface Detail {
	status: string;
	failure: string | null;
	text: string | null;
	quote: string | null;
	html: string | null;
	remoteImages: number;
	parseError: string | null;
	files: { name: string | null; outcome: string; url: string | null; contentId: string | null }[];
}

async function detail(token: string, id: string): Promise<Detail> {
	const res = await api(token, 'GET', `/v3/email/inbound/${id}`);
	expect(res.status).toBe(200);
	return (await res.json()) as Detail;
}

async function messages(token: string, conversationId: string) {
	const res = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
	return ((await res.json()) as { data: { text: string; attachments: { url: string; name: string }[] }[] }).data;
}

describe('an HTML mail', () => {
	it('is sanitized for the console: no script or handler, the remote image held back, the quote marked', async () => {
		const ws = await mailWorkspace();
		const html =
			'<div onclick="steal()">Please see <a href="javascript:alert(1)">this</a><img src="https://tracker.example/open.gif"></div><script>alert(document.cookie)</script><div class="gmail_quote">On Mon, Acme wrote:<blockquote>old</blockquote></div>';
		const raw = mailWithFiles({ to: ws.inbox }, '', [], html);
		await deliver(raw, { from, to: ws.inbox });
		const mail = await lastMail(ws.token);
		expect(mail.status).toBe('posted');
		const shown = await detail(ws.token, mail.id);
		expect(shown.html).not.toMatch(/script|onclick|steal|javascript|alert/);
		expect(shown.html).toContain('<img data-remote-src="https://tracker.example/open.gif" />');
		expect(shown.html).not.toMatch(/ src="https:\/\/tracker/);
		expect(shown.html).toContain('<div data-parley-quote="block">');
		expect(shown.remoteImages).toBe(1);
		// The text of an HTML-only mail, its quote folded away.
		expect(shown.text).toBe('Please see this');
		expect(shown.quote).toMatch(/^On Mon, Acme wrote:/);
		const [message] = await messages(ws.token, mail.conversationId ?? '');
		expect(message?.text).toBe('Please see this');
	});
});

describe('files', () => {
	it('go to R2: a PDF as the message’s attachment, a cid: image inline, a kind not shown stays in the original', async () => {
		const ws = await mailWorkspace();
		const raw = mailWithFiles(
			{ to: ws.inbox },
			'',
			[
				{ name: 'damage.png', type: 'image/png', bytes: PNG_1X1, contentId: 'damage@ana' },
				{ name: 'invoice.pdf', type: 'application/pdf', bytes: PDF },
				{
					name: 'notes.docx',
					type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
					bytes: new Uint8Array([0x50, 0x4b, 3, 4, 1, 2]),
				},
			],
			'<p>Here is the damage:</p><img src="cid:damage@ana"><p>and the invoice attached.</p>',
		);
		await deliver(raw, { from, to: ws.inbox });
		const mail = await lastMail(ws.token);
		expect(mail.status).toBe('posted');
		expect(mail.failure).toBe('1 file(s) of a kind not shown (only images and PDFs) are in the original mail');
		const [message] = await messages(ws.token, mail.conversationId ?? '');
		expect(message?.attachments.map((a) => a.name)).toEqual(['invoice.pdf']);
		expect(message?.text).toContain('[1 file(s) of a kind not shown (only images and PDFs) are in the original mail]');
		const pdf = await api(ws.token, 'GET', new URL(message?.attachments[0]?.url ?? '').pathname);
		expect(new Uint8Array(await pdf.arrayBuffer())).toEqual(PDF);

		const shown = await detail(ws.token, mail.id);
		const inline = shown.files.find((f) => f.contentId === 'damage@ana');
		expect(inline).toMatchObject({ outcome: 'inline', name: 'damage.png' });
		expect(shown.files.map((f) => f.outcome)).toEqual(['inline', 'attached', 'refused']);
		expect(shown.html).toContain(`<img src="${inline?.url}" />`);
		const image = await api(ws.token, 'GET', new URL(inline?.url ?? '').pathname);
		expect(image.headers.get('Content-Type')).toBe('image/png');
		expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG_1X1);
	});

	it('hundreds of attachments: a message’s worth attached, the rest kept in the original and said', async () => {
		const ws = await mailWorkspace();
		const files = Array.from({ length: 300 }, (_, i) => ({
			name: `scan-${i}.pdf`,
			type: 'application/pdf',
			bytes: PDF,
		}));
		await deliver(mailWithFiles({ to: ws.inbox }, 'All the scans.', files), { from, to: ws.inbox });
		const mail = await lastMail(ws.token);
		expect(mail.status).toBe('posted');
		expect(mail.failure).toBe('290 more file(s) than a message carries are in the original mail');
		const [message] = await messages(ws.token, mail.conversationId ?? '');
		expect(message?.attachments).toHaveLength(10);
		expect(message?.text).toBe('All the scans.\n\n[290 more file(s) than a message carries are in the original mail]');
	});
});

describe('files without an origin to link them from', () => {
	it('a reply to a workspace with no inbound address keeps its files in the original, and says why', async () => {
		const ws = await seedWorkspace();
		const conversationId = await startVisitorConversation(await startVisitor(ws.workspaceId), 'Hello');
		const to = `${await replyLocalPart(env, ws.workspaceId, conversationId)}@reply.acme.example`;
		await deliver(
			mailWithFiles({ to }, 'The invoice.', [{ name: 'invoice.pdf', type: 'application/pdf', bytes: PDF }]),
			{
				from,
				to,
			},
		);
		const mail = await lastMail(ws.token);
		expect(mail).toMatchObject({ status: 'posted', conversationId });
		expect(mail.failure).toBe('1 file(s) are in the original mail (no https API origin to link them from)');
		const posted = (await messages(ws.token, conversationId)).at(-1);
		expect(posted?.attachments).toEqual([]);
		expect(posted?.text).toBe(
			'The invoice.\n\n[1 file(s) are in the original mail (no https API origin to link them from)]',
		);
	});
});

describe('bad input, each kept with a recorded outcome', () => {
	it('malformed MIME (parts nested past any real mail) fails with its reason, the raw kept and downloadable', async () => {
		const ws = await mailWorkspace();
		let body = 'deep';
		for (let depth = 60; depth > 0; depth--) {
			body = `--b${depth}\r\nContent-Type: multipart/mixed; boundary="b${depth + 1}"\r\n\r\n${body}\r\n--b${depth}--`;
		}
		const raw = `From: Ana <${from}>\r\nTo: ${ws.inbox}\r\nSubject: nested\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n${body}\r\n`;
		await deliver(raw, { from, to: ws.inbox });
		const mail = await lastMail(ws.token);
		expect(mail).toMatchObject({ status: 'failed', conversationId: null, messageId: null });
		expect(mail.failure).toMatch(/^The MIME structure could not be read/);
		expect((await detail(ws.token, mail.id)).parseError).toMatch(/^The MIME structure could not be read/);
		const original = await api(ws.token, 'GET', `/v3/email/inbound/${mail.id}/raw`);
		expect(original.status).toBe(200);
		expect(original.headers.get('Content-Type')).toBe('message/rfc822');
		expect(original.headers.get('Content-Disposition')).toBe(`attachment; filename="${mail.id}.eml"`);
		expect(new TextDecoder().decode(await original.arrayBuffer())).toBe(raw);
	});

	it('a mail with no sender at all fails, kept', async () => {
		const ws = await mailWorkspace();
		await deliver('this is not a mail at all\r\n', { from: '', to: ws.inbox });
		const mail = await lastMail(ws.token);
		expect(mail).toMatchObject({
			status: 'failed',
			failure: 'The mail names no sender address (no From, no envelope sender).',
		});
	});

	it('a broken charset posts what decodes and says some did not', async () => {
		const ws = await mailWorkspace();
		const head = new TextEncoder().encode(
			`From: Ana <${from}>\r\nTo: ${ws.inbox}\r\nSubject: Pedido\r\nMessage-ID: <latin1-${Date.now()}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nOl`,
		);
		// "Olá, não chegou" written in Latin-1 but declared UTF-8.
		const raw = new Uint8Array([
			...head,
			0xe1,
			...new TextEncoder().encode(', n'),
			0xe3,
			...new TextEncoder().encode('o chegou\r\n'),
		]);
		await deliver(raw, { from, to: ws.inbox });
		const mail = await lastMail(ws.token);
		expect(mail.status).toBe('posted');
		expect(mail.failure).toBe('some characters could not be decoded in the declared charset');
		const [message] = await messages(ws.token, mail.conversationId ?? '');
		expect(message?.text).toBe('Ol\uFFFD, n\uFFFDo chegou');
	});

	it('a mail at Email Routing’s 25 MiB limit is read, its oversized file kept in the original; a larger one is kept unread', async () => {
		const ws = await mailWorkspace();
		// 18 MiB of PDF: about 24.3 MiB once base64-encoded, with the headers just under 25 MiB.
		const big = new Uint8Array(18 * 1024 * 1024);
		big.set(PDF);
		const raw = mailWithFiles({ to: ws.inbox }, 'The full report.', [
			{ name: 'report.pdf', type: 'application/pdf', bytes: big },
		]);
		expect(raw.length).toBeGreaterThan(24 * 1024 * 1024);
		expect(raw.length).toBeLessThanOrEqual(25 * 1024 * 1024);
		await deliver(raw, { from, to: ws.inbox });
		const atLimit = await lastMail(ws.token);
		expect(atLimit.status).toBe('posted');
		expect(atLimit.failure).toBe('1 file(s) over 10 MiB are in the original mail');

		const over = `${raw}${'x'.repeat(1024 * 1024)}`;
		await deliver(over, { from, to: ws.inbox });
		const tooLarge = await lastMail(ws.token);
		expect(tooLarge).toMatchObject({ status: 'failed', failure: 'Larger than 25 MiB: kept as received, not read.' });
		const stored = await env.FILES.head(`mail/in/${tooLarge.id}.eml`);
		expect(stored?.size).toBe(over.length);
	}, 120_000);
});

describe('a plain reply', () => {
	it('keeps the folded quote in the detail', async () => {
		const ws = await mailWorkspace();
		await deliver(gmailMail({ to: ws.inbox }), { from, to: ws.inbox });
		const shown = await detail(ws.token, (await lastMail(ws.token)).id);
		expect(shown.text).toBe('Hi, my order #4411 has not arrived yet.');
		expect(shown.quote).toMatch(/^On Mon, 23 Nov 2026 at 18:02, Acme Support <support@acme.example>\nwrote:/);
		expect(shown.html).toContain('data-parley-quote="block"');
	});
});
