import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { classifyMail, parseDeliveryStatus } from '../../src/engines/mail/machine-mail';
import type { InboundMailKind } from '../../src/model/email';
import { appleMail, bounceMail, gmailMail, newsletterMail, outlookMail, vacationMail } from '../mail-samples';

/** The classifier's input from a raw message, as the inbound path builds it (the real parser). */
async function facts(raw: string, envelopeFrom = 'sender@example.com') {
	const mail = await PostalMime.parse(raw);
	const text = (mime: string) => {
		const part = mail.attachments.find((a) => a.mimeType === mime);
		return part ? new TextDecoder().decode(part.content as ArrayBuffer) : null;
	};
	return {
		headers: mail.headers,
		envelopeFrom,
		deliveryStatus: text('message/delivery-status'),
		originalHeaders: text('text/rfc822-headers') ?? text('message/rfc822'),
	};
}

const plain = (headers: string[], envelopeFrom = 'someone@example.com') =>
	facts(
		`${[...headers, 'From: Someone <someone@example.com>', 'Subject: x', '', 'body'].join('\r\n')}\r\n`,
		envelopeFrom,
	);

describe('classifyMail', () => {
	const cases: [string, () => Promise<Parameters<typeof classifyMail>[0]>, InboundMailKind, RegExp | null][] = [
		['a Gmail reply', () => facts(gmailMail()), 'message', null],
		['an Outlook reply', () => facts(outlookMail()), 'message', null],
		['an Apple Mail reply', () => facts(appleMail()), 'message', null],
		['Auto-Submitted: no is a person', () => plain(['Auto-Submitted: no']), 'message', null],
		['a DSN', () => facts(bounceMail('gone@contoso.example', 'abc@parley'), ''), 'bounce', /delivery status/],
		['a vacation reply', () => facts(vacationMail()), 'auto_reply', /Auto-Submitted: auto-replied/],
		['a newsletter', () => facts(newsletterMail()), 'bulk', /Precedence: bulk/],
		['X-Autoreply', () => plain(['X-Autoreply: yes']), 'auto_reply', /X-Autoreply/],
		['X-Autorespond', () => plain(['X-Autorespond: vacation']), 'auto_reply', /X-Autorespond/],
		['Precedence: auto_reply', () => plain(['Precedence: auto_reply']), 'auto_reply', /auto_reply/],
		['a null envelope sender', () => plain([], ''), 'auto_reply', /null return path/],
		['Return-Path: <>', () => plain(['Return-Path: <>']), 'auto_reply', /null return path/],
		['Precedence: junk', () => plain(['Precedence: junk']), 'bulk', /junk/],
		['Precedence: list', () => plain(['Precedence: list']), 'bulk', /list/],
		['List-Id alone', () => plain(['List-Id: <dev.lists.example>']), 'bulk', /List-Id/],
		['List-Unsubscribe alone', () => plain(['List-Unsubscribe: <mailto:u@x.example>']), 'bulk', /List-Unsubscribe/],
		['Auto-Submitted: auto-generated', () => plain(['Auto-Submitted: auto-generated']), 'bulk', /auto-generated/],
		[
			'a mailer-daemon with a null return path but no report',
			() => facts('From: MAILER-DAEMON@mx.example\r\nSubject: failure\r\n\r\nIt failed.\r\n', ''),
			'bounce',
			/MAILER-DAEMON/,
		],
	];
	it.each(cases)('%s', async (_name, input, kind, reason) => {
		const result = classifyMail(await input());
		expect(result.kind).toBe(kind);
		if (reason) expect(result.reason).toMatch(reason);
		else expect(result.reason).toBeNull();
	});

	it("reads a DSN's failed recipient, status and the bounced Message-ID", async () => {
		const result = classifyMail(await facts(bounceMail('Gone@Contoso.example', 'orig-1@parley.example'), ''));
		expect(result.failed).toEqual([
			{
				address: 'gone@contoso.example',
				action: 'failed',
				status: '5.1.1',
				diagnostic:
					'smtp; 550 5.1.1 <Gone@Contoso.example>: Recipient address rejected: User unknown in virtual mailbox table',
			},
		]);
		expect(result.bouncedMessageId).toBe('orig-1@parley.example');
	});
});

describe('parseDeliveryStatus', () => {
	it('keeps each recipient with its action: a delay is not a failure', () => {
		const text = [
			'Reporting-MTA: dns; mx.example',
			'',
			'Final-Recipient: rfc822; a@x.example',
			'Action: delayed',
			'Status: 4.4.7',
			'',
			'Final-Recipient: rfc822; <b@x.example>',
			'Action: failed',
			'Status: 5.2.2 (mailbox full)',
		].join('\r\n');
		expect(parseDeliveryStatus(text)).toEqual([
			{ address: 'a@x.example', action: 'delayed', status: '4.4.7', diagnostic: null },
			{ address: 'b@x.example', action: 'failed', status: '5.2.2', diagnostic: null },
		]);
	});
});
