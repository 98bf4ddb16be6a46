/**
 * E-mail's vocabulary, written once: what a received mail is, where a sent one stands, and the verdicts of
 * its authentication. The D1 schema, the domain, the API and the console derive their shapes from here.
 */

/** The channel of conversations that came in by mail (and whose team messages go out as mail). */
export const EMAIL_CHANNEL = 'email';

/** What a received mail is: a person's message, or machine mail that must never trigger an automatic answer. */
export const INBOUND_MAIL_KINDS = ['message', 'auto_reply', 'bounce', 'bulk'] as const;
export type InboundMailKind = (typeof INBOUND_MAIL_KINDS)[number];

/** `posted`: it became a message; `ignored`: kept but not posted (machine mail); `rejected`/`failed`: see `failure`. */
export const INBOUND_MAIL_STATUSES = ['received', 'posted', 'ignored', 'rejected', 'failed'] as const;
export type InboundMailStatus = (typeof INBOUND_MAIL_STATUSES)[number];

/** Why Parley sends a mail. */
export const MAIL_DELIVERY_KINDS = ['continuation', 'reply', 'campaign', 'notification'] as const;
export type MailDeliveryKind = (typeof MAIL_DELIVERY_KINDS)[number];

/**
 * Where a mail stands: `queued` until claimed, `sending` while the provider has it, then `sent` or `failed`
 * (the provider's reason in `error`); `skipped` when it must not go (no sender set, the contact stopped
 * continuations, the address is failing, nothing left unseen), the reason in `error` too.
 */
export const MAIL_DELIVERY_STATUSES = ['queued', 'sending', 'sent', 'failed', 'skipped'] as const;
export type MailDeliveryStatus = (typeof MAIL_DELIVERY_STATUSES)[number];

/** A verdict of `Authentication-Results` (RFC 8601), as the receiving server wrote it, lower-case. */
export type AuthVerdict = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy';

/** The SPF, DKIM and DMARC verdicts of a received mail; a missing one was not reported. */
export interface MailAuthentication {
	spf?: AuthVerdict;
	dkim?: AuthVerdict;
	dmarc?: AuthVerdict;
}
