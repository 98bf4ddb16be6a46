/**
 * The D1 data model. Every table carries `workspace_id` and every query filters on it. Times are integer
 * milliseconds since the epoch (cheap to index and compare); the API renders them as ISO-8601 UTC.
 * JSON columns hold shapes validated by zod at the edge of the system.
 * One file per area; this index is what drizzle-kit reads and what the code imports.
 */
export { CONVERSATION_STATUSES } from '../../model/conversations';
export type { AttachmentMeta } from '../../model/messages';
export * from './assignment';
export * from './bots';
export * from './campaigns';
export * from './canned-replies';
export * from './console';
export * from './contacts';
export * from './conversations';
export * from './crm';
export * from './custom-fields';
export * from './directory';
export * from './email';
export * from './events';
export * from './notifications';
export * from './rules';
export * from './scenarios';
export * from './versions';
export * from './webhooks';
export * from './whatsapp';
export * from './widget';
export * from './workspaces';
