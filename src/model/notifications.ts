/**
 * The team's own mail: what an operator can choose to be told of by e-mail. The D1 schema, the domain, the
 * API and the mail's wording derive from this list.
 */

/**
 * `assigned`: a conversation was assigned to them while they were offline; `unanswered`: a new conversation
 * nobody took or answered within their chosen minutes; `mention`: a teammate named them in a private note;
 * `rule`: a rule's notify action or a bot's notify step named them (or the whole team).
 */
export const NOTIFICATION_KINDS = ['assigned', 'unanswered', 'mention', 'rule'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
