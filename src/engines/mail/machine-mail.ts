/**
 * Telling a person's mail from machine mail: an auto-reply, a bounce or bulk mail is stored and marked, and
 * never posted as the contact's message, so no bot, rule or automatic answer ever answers a machine (the
 * mail loop every help desk has met: two vacation responders answering each other for ever).
 *
 * The order decides: a delivery report (RFC 3464) is a bounce whatever else it says; then an answer a
 * machine sent to a mail (RFC 3834 `Auto-Submitted: auto-replied`, the de-facto `X-Autoreply`/`X-Autorespond`,
 * `Precedence: auto_reply`, a null return path); then mail sent to many or generated without a person
 * (`Precedence: bulk|junk|list`, `List-Id`, `List-Unsubscribe`, any other `Auto-Submitted` but `no`).
 */
import type { InboundMailKind } from '../../model/email';
import { headerValue, type MailHeader, messageIds, normalAddress } from './headers';

/** One recipient a delivery report names (RFC 3464 §2.3). */
export interface BouncedRecipient {
	/** The address that failed, lower-case. */
	address: string;
	/** `failed`, `delayed`, `delivered`, `relayed` or `expanded`. */
	action: string;
	/** The enhanced status code (RFC 3463), e.g. `5.1.1`. */
	status: string | null;
	/** The remote server's words, e.g. `smtp; 550 5.1.1 No such user`. */
	diagnostic: string | null;
}

export interface MachineMail {
	kind: InboundMailKind;
	/** What decided it, for an admin: e.g. `Auto-Submitted: auto-replied`. Null for a person's message. */
	reason: string | null;
	/** A bounce's failed recipients (only `Action: failed`); empty for anything else. */
	failed: BouncedRecipient[];
	/** The Message-ID of the mail that bounced, when the report carries its headers. */
	bouncedMessageId: string | null;
}

/** What the classifier reads of a mail. */
export interface MailFacts {
	headers: readonly MailHeader[];
	/** The SMTP envelope's sender (`MAIL FROM`); empty for a null return path (`<>`). */
	envelopeFrom: string;
	/** The text of its `message/delivery-status` part, when it has one. */
	deliveryStatus?: string | null;
	/** The headers of the original message a report carries (`message/rfc822` or `text/rfc822-headers`). */
	originalHeaders?: string | null;
}

/** Local parts that only ever send bounces. */
const BOUNCE_SENDERS = /^(mailer-daemon|postmaster)$/i;

/** Whether the mail had a null return path: an empty envelope sender, or `Return-Path: <>`. */
function nullReturnPath(facts: MailFacts): boolean {
	const envelope = facts.envelopeFrom.trim();
	if (envelope === '' || envelope === '<>') return true;
	return headerValue(facts.headers, 'return-path')?.replace(/\s/g, '') === '<>';
}

/**
 * The per-recipient fields of a delivery-status text (RFC 3464 §2.3): groups separated by blank lines, the
 * first being the per-message fields. Continuation lines are unfolded.
 */
export function parseDeliveryStatus(text: string): BouncedRecipient[] {
	const groups = text
		.replace(/\r\n/g, '\n')
		.replace(/\n[ \t]+/g, ' ')
		.split(/\n\s*\n/);
	const recipients: BouncedRecipient[] = [];
	for (const group of groups) {
		const fields = new Map<string, string>();
		for (const line of group.split('\n')) {
			const colon = line.indexOf(':');
			if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
		}
		const recipient = fields.get('final-recipient') ?? fields.get('original-recipient');
		if (!recipient) continue;
		// `rfc822; user@example.com`: the address type, then the address.
		const address = recipient.includes(';') ? recipient.slice(recipient.indexOf(';') + 1) : recipient;
		recipients.push({
			address: normalAddress(address.replace(/[<>]/g, '')),
			action: (fields.get('action') ?? '').toLowerCase(),
			status: fields.get('status')?.split(/\s/)[0] ?? null,
			diagnostic: fields.get('diagnostic-code') ?? null,
		});
	}
	return recipients;
}

/** The Message-ID in a block of header text (the original message a report returns). */
function originalMessageId(text: string | null | undefined): string | null {
	if (!text) return null;
	const unfolded = text.replace(/\r\n/g, '\n').replace(/\n[ \t]+/g, ' ');
	const line = /^message-id:(.*)$/im.exec(unfolded);
	return messageIds(line?.[1])[0] ?? null;
}

const PERSON: MachineMail = { kind: 'message', reason: null, failed: [], bouncedMessageId: null };

/** What a received mail is (see the module's comment for the order of the rules). */
export function classifyMail(facts: MailFacts): MachineMail {
	const { headers } = facts;
	const contentType = headerValue(headers, 'content-type')?.toLowerCase() ?? '';
	const isReport = /^multipart\/report\b/.test(contentType) && /report-type\s*=\s*"?delivery-status/.test(contentType);
	if (isReport || facts.deliveryStatus) {
		const failed = parseDeliveryStatus(facts.deliveryStatus ?? '').filter((r) => r.action === 'failed');
		return {
			kind: 'bounce',
			reason: 'a delivery status report (multipart/report; report-type=delivery-status)',
			failed,
			bouncedMessageId: originalMessageId(facts.originalHeaders),
		};
	}
	const from = headerValue(headers, 'from') ?? '';
	const fromLocal = /([^<\s@"]+)@/.exec(from)?.[1] ?? '';
	if (nullReturnPath(facts) && BOUNCE_SENDERS.test(fromLocal)) {
		// A bounce that is not a standard report: recognised, but it names no recipient we can trust.
		return { kind: 'bounce', reason: `a null return path from ${fromLocal}`, failed: [], bouncedMessageId: null };
	}
	const autoSubmitted =
		headerValue(headers, 'auto-submitted')
			?.toLowerCase()
			.split(/[;\s(]/)[0] ?? null;
	if (autoSubmitted === 'auto-replied') return machine('auto_reply', `Auto-Submitted: ${autoSubmitted}`);
	for (const name of ['X-Autoreply', 'X-Autorespond', 'X-Autoresponder']) {
		const value = headerValue(headers, name);
		if (value !== null && !/^(no|false|0)$/i.test(value)) return machine('auto_reply', `${name}: ${value}`);
	}
	const precedence = headerValue(headers, 'precedence')?.toLowerCase() ?? null;
	if (precedence === 'auto_reply') return machine('auto_reply', 'Precedence: auto_reply');
	if (nullReturnPath(facts)) return machine('auto_reply', 'a null return path (MAIL FROM:<>)');
	if (precedence === 'bulk' || precedence === 'junk' || precedence === 'list') {
		return machine('bulk', `Precedence: ${precedence}`);
	}
	if (headerValue(headers, 'list-id') !== null) return machine('bulk', 'List-Id');
	if (headerValue(headers, 'list-unsubscribe') !== null) return machine('bulk', 'List-Unsubscribe');
	if (autoSubmitted !== null && autoSubmitted !== 'no') return machine('bulk', `Auto-Submitted: ${autoSubmitted}`);
	return PERSON;
}

function machine(kind: InboundMailKind, reason: string): MachineMail {
	return { kind, reason, failed: [], bouncedMessageId: null };
}
