/**
 * A received mail read once with postal-mime and the mail engines: who sent it, what it answers, what kind
 * of mail it is, how it authenticated, and its text. The inbound path and the mail's detail (which reads the
 * raw message again from R2, so nothing derived is stored twice) share it.
 */
import PostalMime, { type Attachment, type Email } from 'postal-mime';
import { isPossiblyForged, mailAuthentication } from '../../../engines/mail/authentication';
import {
	hadControlCharacters,
	headerValue,
	messageIds,
	normalAddress,
	singleLine,
} from '../../../engines/mail/headers';
import { mailHtmlText } from '../../../engines/mail/html';
import { classifyMail, type MachineMail } from '../../../engines/mail/machine-mail';
import type { MailAuthentication } from '../../../model/email';

/** Parser limits below its defaults: no real mail nests 50 parts deep or carries 1 MiB of headers. */
const PARSER_OPTIONS = {
	// A forwarded mail stays one attachment, and a DSN's returned message stays apart from its text.
	forceRfc822Attachments: true,
	maxNestingDepth: 50,
	maxHeadersSize: 1024 * 1024,
};

/** The parts a delivery report is made of: evidence, never a customer's file. */
const REPORT_PARTS = new Set(['message/delivery-status', 'text/rfc822-headers', 'message/feedback-report']);

export interface ParsedMail {
	email: Email;
	/** The From address (lower-case), else the envelope's; null with neither. */
	sender: string | null;
	senderName: string | null;
	/** One line: a line break an encoded word smuggled in is a space here. */
	subject: string;
	/** Whether the Subject or From carried a line break or control character (a header injection attempt). */
	headerInjection: boolean;
	messageId: string | null;
	/** `In-Reply-To` then `References` (newest first): the ids a reply may thread by. */
	threadIds: string[];
	machine: MachineMail;
	authentication: MailAuthentication | null;
	possiblyForged: boolean;
	/** The plain text (the text part, else the HTML's text). */
	text: string;
	/** Whether some bytes did not decode in the declared charset (shown as U+FFFD). */
	undecodable: boolean;
	/** The customer's files: every attachment but a report's parts, in the message's order. */
	attachments: Attachment[];
}

/** Thrown when the parser refuses the message: its reason, for the admin. */
export class MalformedMail extends Error {}

function decoded(part: Attachment | undefined): string | null {
	if (!part) return null;
	if (typeof part.content === 'string') return part.content;
	return new TextDecoder().decode(part.content);
}

/** Parses a raw message; MalformedMail when the parser refuses it or it names no sender at all. */
export async function parseMail(raw: ArrayBuffer, envelopeFrom: string): Promise<ParsedMail> {
	let email: Email;
	try {
		email = await PostalMime.parse(raw, PARSER_OPTIONS);
	} catch (error) {
		throw new MalformedMail(`The MIME structure could not be read: ${String((error as Error).message ?? error)}`);
	}
	const from = email.from && 'address' in email.from && email.from.address ? email.from : null;
	const sender = from?.address ? normalAddress(from.address) : envelopeFrom ? normalAddress(envelopeFrom) : null;
	if (!sender?.includes('@'))
		throw new MalformedMail('The mail names no sender address (no From, no envelope sender).');
	const byType = (mime: string) => email.attachments.find((a) => a.mimeType === mime);
	const machine = classifyMail({
		headers: email.headers,
		envelopeFrom,
		deliveryStatus: decoded(byType('message/delivery-status')),
		originalHeaders: decoded(byType('text/rfc822-headers')) ?? decoded(byType('message/rfc822')),
	});
	const authentication = mailAuthentication(email.headers);
	const text = email.text ?? (email.html ? mailHtmlText(email.html) : '');
	const rawSubject = email.subject ?? '';
	return {
		email,
		sender,
		senderName: singleLine(from?.name, 120) || null,
		subject: singleLine(rawSubject, 250),
		headerInjection: hadControlCharacters(rawSubject) || hadControlCharacters(from?.name),
		messageId: messageIds(email.messageId)[0] ?? null,
		threadIds: [...messageIds(email.inReplyTo), ...messageIds(email.references).reverse()],
		machine,
		authentication,
		possiblyForged: isPossiblyForged(authentication),
		text,
		undecodable: text.includes('\uFFFD') || (email.html ?? '').includes('\uFFFD'),
		attachments: email.attachments.filter((a) => !REPORT_PARTS.has(a.mimeType) && machine.kind !== 'bounce'),
	};
}

/** The header value of the parsed mail, one line (for the detail's header list). */
export function parsedHeader(mail: ParsedMail, name: string): string | null {
	const value = headerValue(mail.email.headers, name);
	return value === null ? null : singleLine(value);
}
