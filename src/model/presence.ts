/** An operator's presence: what assignment and bots read to decide who is available now. */
export const PRESENCE_STATUSES = ['online', 'away', 'busy', 'offline'] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];

/** Why a presence moved (see `member.status_changed`). */
export const PRESENCE_REASONS = ['set', 'connected', 'disconnected', 'removed'] as const;
export type PresenceReason = (typeof PRESENCE_REASONS)[number];
