/**
 * Raw RFC 5322 messages as real mail clients and servers write them (Gmail, Outlook, Apple Mail, a delivery
 * status report, a vacation responder, a newsletter), written for these tests. Each takes the addresses and
 * ids a test needs; every line ends in CRLF, as on the wire.
 */

export interface MailAddressing {
	from?: string;
	fromName?: string;
	to?: string;
	subject?: string;
	messageId?: string;
	inReplyTo?: string;
	references?: string[];
	/** Extra header lines, written above the others (as a later hop would add them). */
	extraHeaders?: string[];
}

const crlf = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

let counter = 0;
/** A Message-ID unique to this test run. */
export function newMessageId(domain = 'mail.gmail.com'): string {
	counter++;
	return `CAF${Date.now().toString(36)}${counter}x${Math.random().toString(36).slice(2, 10)}@${domain}`;
}

function head(a: MailAddressing, defaults: { from: string; fromName: string; subject: string }): string[] {
	const from = a.from ?? defaults.from;
	const lines = [
		...(a.extraHeaders ?? []),
		`From: ${a.fromName ?? defaults.fromName} <${from}>`,
		`To: ${a.to ?? 'support@acme.example'}`,
		`Subject: ${a.subject ?? defaults.subject}`,
		'Date: Tue, 24 Nov 2026 10:15:02 -0300',
		`Message-ID: <${a.messageId ?? newMessageId()}>`,
	];
	if (a.inReplyTo) lines.push(`In-Reply-To: <${a.inReplyTo}>`);
	if (a.references?.length) lines.push(`References: ${a.references.map((r) => `<${r}>`).join(' ')}`);
	lines.push('MIME-Version: 1.0');
	return lines;
}

/** Gmail: multipart/alternative, the quote in `gmail_quote`, "On … wrote:" wrapped over two lines. */
export function gmailMail(a: MailAddressing = {}, body = 'Hi, my order #4411 has not arrived yet.'): string {
	const boundary = '000000000000a1b2c3d4e5f60718';
	return crlf([
		...head(a, { from: 'ana.souza@gmail.com', fromName: 'Ana Souza', subject: 'Order #4411 not delivered' }),
		`Content-Type: multipart/alternative; boundary="${boundary}"`,
		'',
		`--${boundary}`,
		'Content-Type: text/plain; charset="UTF-8"',
		'',
		body,
		'',
		'On Mon, 23 Nov 2026 at 18:02, Acme Support <support@acme.example>',
		'wrote:',
		'',
		'> Thanks for writing! Could you tell us your order number?',
		'>',
		'',
		`--${boundary}`,
		'Content-Type: text/html; charset="UTF-8"',
		'Content-Transfer-Encoding: quoted-printable',
		'',
		`<div dir=3D"ltr">${body}</div><br><div class=3D"gmail_quote"><div dir=3D"ltr" =`,
		'class=3D"gmail_attr">On Mon, 23 Nov 2026 at 18:02, Acme Support &lt;support@acme.example&gt; wrote:<br></div>=',
		'<blockquote class=3D"gmail_quote" style=3D"margin:0px 0px 0px 0.8ex">Thanks for writing! Could y=',
		'ou tell us your order number?</blockquote></div>',
		'',
		`--${boundary}--`,
	]);
}

/** Outlook for Windows: the original-message header block in text, `divRplyFwdMsg` in HTML. */
export function outlookMail(a: MailAddressing = {}, body = 'Yes, please cancel the subscription.'): string {
	const boundary = '_000_PH7PR11MB6523A1B2C3D4E5F6G7H8PH7PR11MB6523namp_';
	return crlf([
		...head(a, { from: 'j.miller@contoso.example', fromName: 'Miller, John', subject: 'RE: Your subscription' }),
		'Thread-Topic: Your subscription',
		'X-MS-Has-Attach:',
		`Content-Type: multipart/alternative; boundary="${boundary}"`,
		'',
		`--${boundary}`,
		'Content-Type: text/plain; charset="us-ascii"',
		'Content-Transfer-Encoding: quoted-printable',
		'',
		body,
		'',
		'John Miller',
		'Contoso Ltd.',
		'',
		'________________________________',
		'From: Acme Support <support@acme.example>',
		'Sent: Monday, November 23, 2026 6:02 PM',
		'To: Miller, John <j.miller@contoso.example>',
		'Subject: Your subscription',
		'',
		'Would you like us to cancel it?',
		'',
		`--${boundary}`,
		'Content-Type: text/html; charset="us-ascii"',
		'Content-Transfer-Encoding: quoted-printable',
		'',
		'<html><head><style>p.MsoNormal{margin:0}</style></head><body>',
		`<div class=3D"WordSection1"><p class=3D"MsoNormal">${body}</p></div>`,
		'<hr style=3D"display:inline-block;width:98%"><div id=3D"divRplyFwdMsg" dir=3D"ltr"><b>From:</b> Acme Su=',
		'pport &lt;support@acme.example&gt;<br><b>Sent:</b> Monday, November 23, 2026 6:02 PM</div>',
		'<div>Would you like us to cancel it?</div></body></html>',
		'',
		`--${boundary}--`,
	]);
}

/** Apple Mail on an iPhone: plain text, "On … at …, … wrote:", "Sent from my iPhone". */
export function appleMail(a: MailAddressing = {}, body = 'Great, thank you! I will try again tonight.'): string {
	return crlf([
		...head(a, { from: 'li.wei@icloud.com', fromName: 'Li Wei', subject: 'Re: Password reset' }),
		'Content-Type: text/plain; charset=utf-8',
		'Content-Transfer-Encoding: 8bit',
		'X-Mailer: iPhone Mail (22B91)',
		'',
		body,
		'',
		'Sent from my iPhone',
		'',
		'> On 23 Nov 2026, at 18:02, Acme Support <support@acme.example> wrote:',
		'>',
		'> Here is the link to reset your password.',
	]);
}

/**
 * A delivery status notification (RFC 3464) for a mail Parley sent: `multipart/report` with the human part,
 * the machine-readable `message/delivery-status` and the original message's headers.
 */
export function bounceMail(recipient: string, originalMessageId: string, a: MailAddressing = {}): string {
	const boundary = '=_report_5f8a';
	return crlf([
		...head(
			{ ...a, from: a.from ?? 'mailer-daemon@mx.contoso.example' },
			{ from: '', fromName: 'Mail Delivery System', subject: 'Undelivered Mail Returned to Sender' },
		),
		'Auto-Submitted: auto-replied',
		`Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
		'',
		`--${boundary}`,
		'Content-Type: text/plain; charset=us-ascii',
		'',
		'This is the mail system at host mx.contoso.example.',
		'I am sorry to have to inform you that your message could not be delivered.',
		'',
		`--${boundary}`,
		'Content-Type: message/delivery-status',
		'',
		'Reporting-MTA: dns; mx.contoso.example',
		'Arrival-Date: Tue, 24 Nov 2026 10:15:00 -0300',
		'',
		`Final-Recipient: rfc822; ${recipient}`,
		`Original-Recipient: rfc822;${recipient}`,
		'Action: failed',
		'Status: 5.1.1',
		`Diagnostic-Code: smtp; 550 5.1.1 <${recipient}>: Recipient address rejected:`,
		' User unknown in virtual mailbox table',
		'',
		`--${boundary}`,
		'Content-Type: text/rfc822-headers',
		'',
		'From: Acme Support <support@acme.example>',
		`To: ${recipient}`,
		'Subject: Re: Your order',
		`Message-ID: <${originalMessageId}>`,
		'',
		`--${boundary}--`,
	]);
}

/** A vacation responder (Gmail's): `Auto-Submitted: auto-replied`. */
export function vacationMail(a: MailAddressing = {}): string {
	return crlf([
		...head(a, { from: 'ana.souza@gmail.com', fromName: 'Ana Souza', subject: 'Out of office: Order #4411' }),
		'Auto-Submitted: auto-replied',
		'Precedence: bulk',
		'Content-Type: text/plain; charset=UTF-8',
		'',
		'I am on vacation until December 1st and will answer when I am back.',
	]);
}

/** A newsletter: `List-Unsubscribe` with one-click (RFC 8058), `Precedence: bulk`, `List-Id`. */
export function newsletterMail(a: MailAddressing = {}): string {
	return crlf([
		...head(a, { from: 'news@shop.example', fromName: 'Shop Weekly', subject: 'Black Friday: 40% off' }),
		'List-Id: Shop Weekly <weekly.shop.example>',
		'List-Unsubscribe: <https://shop.example/u/8f2a>, <mailto:unsubscribe@shop.example?subject=8f2a>',
		'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
		'Precedence: bulk',
		'Content-Type: text/html; charset=UTF-8',
		'',
		'<html><body><h1>40% off</h1><img src="https://t.shop.example/open/8f2a.gif" width="1" height="1"></body></html>',
	]);
}

/** A plain mail with attachments: `files` of name, type and bytes; `related` ones are inline (`cid:`) images. */
export function mailWithFiles(
	a: MailAddressing,
	text: string,
	files: { name: string; type: string; bytes: Uint8Array; contentId?: string }[],
	html?: string,
): string {
	const boundary = '----=_Part_77_1234567.1764000000000';
	const base64 = (bytes: Uint8Array) => {
		let binary = '';
		for (const byte of bytes) binary += String.fromCharCode(byte);
		return (btoa(binary).match(/.{1,76}/g) ?? []).join('\r\n');
	};
	const parts = files.map((file) =>
		[
			`--${boundary}`,
			`Content-Type: ${file.type}; name="${file.name}"`,
			'Content-Transfer-Encoding: base64',
			file.contentId
				? `Content-ID: <${file.contentId}>\r\nContent-Disposition: inline; filename="${file.name}"`
				: `Content-Disposition: attachment; filename="${file.name}"`,
			'',
			base64(file.bytes),
		].join('\r\n'),
	);
	const body = html
		? [`--${boundary}`, 'Content-Type: text/html; charset=UTF-8', '', html]
		: [`--${boundary}`, 'Content-Type: text/plain; charset=UTF-8', '', text];
	return crlf([
		...head(a, { from: 'ana.souza@gmail.com', fromName: 'Ana Souza', subject: 'Photos of the damage' }),
		`Content-Type: multipart/${html ? 'related' : 'mixed'}; boundary="${boundary}"`,
		'',
		...body,
		...parts,
		`--${boundary}--`,
	]);
}
