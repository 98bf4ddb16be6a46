// Helpers of the e-mail browser tests: a customer's mail as a mail client writes it, and its delivery to the
// Worker through wrangler dev's local e-mail endpoint (what Email Routing does in production).
import { expect } from 'vitest';
import { baseUrl } from './widget-page';

/** The remote image of the mail's HTML part: a tracking pixel the console must not load unasked. */
export const TRACKER = 'https://tracker.example/pixel.png';

/**
 * A multipart/alternative mail as a client writes a reply: new text, a signature, the quoted history;
 * its HTML part with a script, an onclick and a remote image. The README's screenshot mails it too.
 */
export function customerMail(from: string, to: string, subject: string): string {
	const boundary = 'b1_parley_e2e';
	const text = [
		'Hello, my order #4411 never arrived. Can you check where it is?',
		'',
		'-- ',
		'Ana Souza',
		'Buyer at Example Ltd',
		'',
		'On Mon, 1 Dec 2026 at 10:00, Acme Support <support@acme.example> wrote:',
		'> Your order #4411 has shipped.',
		'> It should arrive within three days.',
	].join('\r\n');
	const html = [
		'<div>Hello, my order #4411 never arrived. Can you check where it is?</div>',
		'<div onclick="document.title=\'clicked\'">Ana Souza</div>',
		'<script>document.title = "pwned"</script>',
		`<img src="${TRACKER}" alt="tracker" width="1" height="1">`,
		'<div class="gmail_quote"><div>On Mon, 1 Dec 2026 at 10:00, Acme Support wrote:</div>',
		'<blockquote>Your order #4411 has shipped.</blockquote></div>',
	].join('\r\n');
	return [
		`From: Ana Souza <${from}>`,
		`To: ${to}`,
		`Subject: ${subject}`,
		'Date: Tue, 2 Dec 2026 09:30:00 +0000',
		`Message-ID: <e2e-${Date.now()}@mail.example>`,
		'MIME-Version: 1.0',
		`Content-Type: multipart/alternative; boundary="${boundary}"`,
		'',
		`--${boundary}`,
		'Content-Type: text/plain; charset=utf-8',
		'',
		text,
		`--${boundary}`,
		'Content-Type: text/html; charset=utf-8',
		'',
		html,
		`--${boundary}--`,
		'',
	].join('\r\n');
}

/** Mails `raw` into the Worker through wrangler dev's local e-mail endpoint, as Email Routing would. */
export async function deliver(from: string, to: string, raw: string): Promise<void> {
	const query = new URLSearchParams({ from, to });
	const res = await fetch(`${baseUrl}/cdn-cgi/handler/email?${query}`, { method: 'POST', body: raw });
	expect(res.status, await res.text()).toBeLessThan(300);
}
