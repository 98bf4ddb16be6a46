/**
 * The team's notification mail: what happened, the customer's last words quoted, and a link to the
 * conversation in the console. Pure, as compose.ts is: the facts come in, the binding's message comes out,
 * every piece of user text escaped in the HTML and every header value one clean line.
 *
 * A notification's delivery is identified by its dedupe key, which names what it is about: this module writes
 * the key when the mail is enqueued and reads it back when the mail is built, so the two cannot drift.
 */
import { NOTIFICATION_KINDS, type NotificationKind } from '../../model/notifications';
import { escapeHtml, formattedHtml, UnsafeAddress } from './compose';
import { headerText, isMailAddress } from './header-safety';

/**
 * What one notification is about. `ref` is what makes it once per member: the event for an assignment and
 * a rule's or a bot's notify (a redelivered event is the same event), the note for a mention, the conversation for
 * the unanswered one (it is mailed once, however often the sweep looks).
 */
export interface NotificationKey {
	kind: NotificationKind;
	operatorId: string;
	/** The conversation, or `-` for a rule's notify about a contact only. */
	conversationId: string | null;
	ref: string;
}

/** `notify:<kind>:<operator>:<conversation or ->:<ref>`; ids never hold a colon. */
export function notificationKey(key: NotificationKey): string {
	return ['notify', key.kind, key.operatorId, key.conversationId ?? '-', key.ref].join(':');
}

/** The key `notificationKey` wrote, or null for anything else. */
export function parseNotificationKey(dedupeKey: string): NotificationKey | null {
	const [prefix, kind, operatorId, conversationId, ref, ...rest] = dedupeKey.split(':');
	if (prefix !== 'notify' || rest.length > 0 || !operatorId || !conversationId || !ref) return null;
	const known = NOTIFICATION_KINDS.find((k) => k === kind);
	if (known === undefined) return null;
	return { kind: known, operatorId, conversationId: conversationId === '-' ? null : conversationId, ref };
}

export interface NotificationInput {
	kind: NotificationKind;
	from: { address: string; name: string };
	/** The operator's address. */
	to: string;
	workspaceName: string;
	/** Who the conversation is with (a contact's name or address), or null. */
	contactLabel: string | null;
	/** The teammate who wrote a mention; the rule's (the bot's) name for a notify. */
	by: string | null;
	/** Who sent a `rule` notification: a rule's notify action or a bot's notify step (a rule when absent). */
	notifier?: 'rule' | 'bot';
	/** The unanswered conversation's minutes; the rule's text; the note's text. */
	minutes?: number;
	detail?: string | null;
	/** The customer's last message in the conversation, or null. */
	lastCustomerMessage: string | null;
	/** The conversation in the console, or null when the notification is about no conversation. */
	link: string | null;
}

/** The binding's message for a notification (no Reply-To: an answer goes to the sender, never to a customer). */
export interface NotificationMail {
	from: { email: string; name: string };
	to: string;
	subject: string;
	text: string;
	html: string;
	headers: Record<string, string>;
}

const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

/** The one line that says what happened, as the subject and the first line of the body. */
export function notificationHeadline(input: NotificationInput): string {
	const who = input.contactLabel ? ` with ${input.contactLabel}` : '';
	switch (input.kind) {
		case 'assigned':
			return `A conversation${who} was assigned to you`;
		case 'unanswered':
			return `A new conversation${who} has waited ${minutes(input.minutes ?? 0)} with nobody on it`;
		case 'mention':
			return `${input.by ?? 'A teammate'} mentioned you in a private note`;
		case 'rule': {
			const [named, unnamed] = input.notifier === 'bot' ? ['Bot', 'A bot'] : ['Rule', 'A rule'];
			return `${input.by ? `${named} “${input.by}”` : unnamed} notified you${who}`;
		}
	}
}

/** Builds the mail; throws `UnsafeAddress` when an address is not plainly one. */
export function composeNotification(input: NotificationInput): NotificationMail {
	for (const address of [input.from.address, input.to]) {
		if (!isMailAddress(address)) throw new UnsafeAddress(`not a plain mail address: ${JSON.stringify(address)}`);
	}
	const headline = headerText(notificationHeadline(input));
	const workspace = headerText(input.workspaceName) || 'Parley';
	const text: string[] = [headline];
	const html: string[] = [`<p style="margin:0 0 12px"><strong>${escapeHtml(headline)}</strong></p>`];
	if (input.detail) {
		text.push('', input.detail);
		html.push(`<p style="margin:0 0 12px;white-space:pre-wrap">${formattedHtml(input.detail)}</p>`);
	}
	if (input.lastCustomerMessage !== null) {
		const quoted = input.lastCustomerMessage
			.split('\n')
			.map((line) => `> ${line}`)
			.join('\n');
		text.push('', `${input.contactLabel ?? 'The customer'} wrote:`, quoted);
		html.push(
			`<p style="margin:0 0 4px;color:#555">${escapeHtml(input.contactLabel ?? 'The customer')} wrote:</p>`,
			`<blockquote style="margin:0 0 12px;padding:0 0 0 12px;border-left:3px solid #ccc;white-space:pre-wrap">${formattedHtml(input.lastCustomerMessage)}</blockquote>`,
		);
	}
	if (input.link !== null) {
		text.push('', `Open the conversation: ${input.link}`);
		html.push(`<p style="margin:0 0 12px"><a href="${escapeHtml(input.link)}">Open the conversation</a></p>`);
	}
	const footer = `You receive this because of your notification settings in ${workspace}.`;
	text.push('', '--', footer);
	return {
		from: { email: input.from.address, name: headerText(input.from.name) || workspace },
		to: input.to,
		subject: headerText(`[${workspace}] ${headline}`),
		text: `${text.join('\n')}\n`,
		html: [
			'<!doctype html><html><body style="font-family:sans-serif;font-size:14px;line-height:1.4">',
			...html,
			`<p style="margin:16px 0 0;font-size:12px;color:#777">${escapeHtml(footer)}</p>`,
			'</body></html>',
		].join(''),
		// Parley sends it on its own: no out-of-office answer should come back to it.
		headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
	};
}
