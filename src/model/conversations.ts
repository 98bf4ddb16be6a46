import { z } from '@hono/zod-openapi';

/** The conversation statuses, written once for the D1 schema, the API and the event catalogue. */
export const CONVERSATION_STATUSES = ['open', 'pending', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** A conversation's channel: a lower-case name (`widget`, `api`, `whatsapp`), for routing and reporting. */
export const channelName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a lower-case channel name');

/** Which advertising click brought a visitor: a search ad's (gclid), a social ad's (fbclid), or none. */
export const AD_CLICKS = ['search', 'social', 'none'] as const;
export type AdClick = (typeof AD_CLICKS)[number];
