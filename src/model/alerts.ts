/**
 * Alerts: what tells an operator, in the console, on the desktop or by Web Push, that something concerns it.
 * The kinds a member chooses among (its notification settings), and the alert as the inbox feed's `alert`
 * frame and a push message carry it: facts, not sentences, so each browser words it in its own language.
 */

/**
 * `new_conversation`: a conversation started that the member could take (in its group, when it has one);
 * `assigned`: a conversation was assigned to the member; `message`: the customer wrote in a conversation
 * assigned to the member; `mention`: a teammate named the member in a private note; `rule`: an automation
 * rule's notify action, or a bot's notify step, named the member (or the whole team).
 */
export const ALERT_KINDS = ['new_conversation', 'assigned', 'message', 'mention', 'rule'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** The longest text an alert quotes: a desktop notification shows two or three lines. */
export const ALERT_TEXT_MAX = 140;

/** One alert for one member. */
export interface Alert {
	/** The alert's id (the event's): a browser shows one notification per id, however often it arrives. */
	id: string;
	kind: AlertKind;
	/** The conversation a click opens; null for a rule's notification about no conversation. */
	conversationId: string | null;
	/** Who it is about: the contact's name (else e-mail, else phone), or the rule's (the bot's) name for `rule`; null for a
	 * contact known by nothing (the browser shows its short label, from `contactId`). */
	title: string | null;
	contactId: string | null;
	/** The message, note or notification text, cut at ALERT_TEXT_MAX; empty for a new or assigned conversation. */
	text: string;
	at: string;
}

/** `text` cut at ALERT_TEXT_MAX characters (an ellipsis where it was cut), on one line. */
export function alertText(text: string): string {
	const line = text.replace(/\s+/g, ' ').trim();
	return line.length <= ALERT_TEXT_MAX ? line : `${line.slice(0, ALERT_TEXT_MAX - 1)}…`;
}
