/**
 * WhatsApp's vocabulary, written once: the channel's name, Meta's limits that shape what Parley sends, and
 * where a message handed to the Cloud API stands. The D1 schema, the domain, the API and the console derive
 * their shapes from here. Figures cite Meta's Cloud API reference (see docs/whatsapp.md).
 */

/** The channel of conversations that came in through a connected WhatsApp Business number. */
export const WHATSAPP_CHANNEL = 'whatsapp';

/** Meta's Graph API, unless a connection points elsewhere (a staging proxy, the tests' fake). */
export const DEFAULT_GRAPH_URL = 'https://graph.facebook.com';
export const DEFAULT_GRAPH_VERSION = 'v25.0';
export const GRAPH_VERSION_PATTERN = /^v\d{1,3}\.\d{1,2}$/;

/** The customer-service window: a free-form message may be sent until this long after the customer's last one. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Meta's default throughput per business number, inbound and outbound together; Parley's sending Queue keeps
 * under it (`messagesPerSecond` of a connection, at most this unless Meta raised the number's tier).
 */
export const DEFAULT_MESSAGES_PER_SECOND = 80;

/** What Meta accepts in one message (reply buttons, lists, text). */
export const WHATSAPP_LIMITS = {
	textBody: 4096,
	caption: 1024,
	buttons: 3,
	buttonTitle: 20,
	buttonBody: 1024,
	listRows: 10,
	listRowTitle: 24,
	listRowDescription: 72,
	listBody: 4096,
	listButton: 20,
	replyId: 256,
} as const;

/** Why Parley sends a WhatsApp message: the team's (or a bot's, a rule's) message, or a campaign's template. */
export const WHATSAPP_DELIVERY_KINDS = ['reply', 'template', 'campaign'] as const;
export type WhatsappDeliveryKind = (typeof WHATSAPP_DELIVERY_KINDS)[number];

/**
 * Where a message handed to the Cloud API stands: `queued` until claimed, `sending` while the API has it,
 * `sent` once it answered with a WhatsApp id, then `delivered` and `read` as Meta's status webhooks say (they
 * may skip or reorder: a state never moves back), or `failed` (Meta's code and title in `error`);
 * `skipped` when it must not go (outside the 24-hour window without a template, no number connected).
 */
export const WHATSAPP_DELIVERY_STATUSES = [
	'queued',
	'sending',
	'sent',
	'delivered',
	'read',
	'failed',
	'skipped',
] as const;
export type WhatsappDeliveryStatus = (typeof WHATSAPP_DELIVERY_STATUSES)[number];

/**
 * What became of a webhook's message: `posted` into a conversation; `ignored` (a status-only or system
 * notice kept for the record); `failed` (kept, with the reason, and retried by Meta's redelivery).
 */
export const WHATSAPP_INBOUND_STATUSES = ['posted', 'ignored', 'failed'] as const;
export type WhatsappInboundStatus = (typeof WHATSAPP_INBOUND_STATUSES)[number];

/** A Click-to-WhatsApp ad's referral, as the conversation's and the contact's origin keep it. */
export interface WhatsappReferral {
	sourceUrl?: string;
	sourceId?: string;
	sourceType?: string;
	headline?: string;
	body?: string;
	mediaType?: string;
	ctwaClid?: string;
}
