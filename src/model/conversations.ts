/** The conversation statuses, written once for the D1 schema, the API and the event catalogue. */
export const CONVERSATION_STATUSES = ['open', 'pending', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
