/**
 * Example bodies for the API document, typed by the schemas they illustrate (so they cannot drift from
 * them silently) and checked against those schemas by Redocly (`no-invalid-media-type-examples`).
 */
import type { z } from '@hono/zod-openapi';
import type { conversationSchema, conversationWithContactSchema } from '../domain/conversations/conversations';
import type { messageSchema } from '../domain/conversations/messages';
import type { contactRecordSchema } from '../domain/crm/contact-records';
import type { contactSchema } from '../domain/crm/contacts';
import type { groupSchema } from '../domain/team/groups';
import type { memberSchema } from '../domain/team/members';
import type { issuedTokenSchema } from '../domain/team/tokens';
import type { handoffSchema } from '../domain/widget/handoffs';
import type { visitorConversationSchema } from '../domain/widget/visitor-sessions';

const at = '2026-11-21T12:00:00.000Z';

export const conversationExample: z.input<typeof conversationSchema> = {
	id: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	workspaceId: 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	contactId: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	channel: 'api',
	subject: null,
	status: 'open',
	assigneeId: null,
	groupId: null,
	tags: ['billing'],
	origin: {
		utmSource: 'newsletter',
		utmMedium: 'email',
		utmCampaign: 'autumn',
		utmContent: null,
		utmTerm: null,
		gclid: null,
		fbclid: null,
		landingUrl: 'https://shop.example/tents?utm_source=newsletter',
		referrer: null,
		ctwaClid: null,
		adReferral: null,
	},
	lastMessageSeq: 1,
	unreadByOperators: 0,
	unreadByContact: 1,
	createdAt: at,
	updatedAt: at,
	lastMessageAt: at,
	lastActivityAt: at,
	waitingSince: null,
	snoozedUntil: null,
};

export const contactExample: z.input<typeof contactSchema> = {
	id: 'ctc_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Ada Lovelace',
	email: 'ada@example.com',
	phone: null,
	customFields: { plan: 'pro' },
	firstOrigin: { utmSource: 'newsletter' },
	lastOrigin: { utmSource: 'newsletter' },
	externalId: null,
	verified: false,
	claimedEmail: null,
	claimedPhone: null,
	optedOut: false,
	optedOutAt: null,
	optedOutSource: null,
	createdAt: at,
	updatedAt: at,
};

export const contactRecordExample: z.input<typeof contactRecordSchema> = {
	...contactExample,
	tags: ['vip'],
	openDealCount: 1,
};

export const conversationWithContactExample: z.input<typeof conversationWithContactSchema> = {
	...conversationExample,
	contact: contactExample,
};

export const messageExample: z.input<typeof messageSchema> = {
	id: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	conversationId: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	seq: 2,
	authorKind: 'operator',
	authorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	text: 'Your order ships tomorrow.',
	attachments: [],
	interactive: null,
	clientMessageId: null,
	private: false,
	createdAt: at,
};

export const visitorMessageExample: z.input<typeof messageSchema> = {
	...messageExample,
	seq: 1,
	authorKind: 'contact',
	authorId: null,
	text: 'Is the Ridge 2 tent in stock?',
	clientMessageId: 'c8f3b0e2-5d1a-4f7e-9c61-2b0d3e4f5a6b',
};

export const operatorExample: z.input<typeof memberSchema> = {
	id: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	email: 'rita@acme.example',
	name: 'Rita Alves',
	permissions: ['conversations:read', 'messages:send'],
	groups: [{ id: 'grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', name: 'Sales' }],
	capacity: 8,
	disabled: false,
	disabledAt: null,
	createdAt: at,
};

export const groupExample: z.input<typeof groupSchema> = {
	id: 'grp_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Sales',
	memberIds: ['op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T'],
	createdAt: at,
};

export const issuedTokenExample: z.input<typeof issuedTokenSchema> = {
	token: 'prly_Ky9Pf34qY6Nb3wWD25RQ4F5ZR3qa7yEeeby3abP3E2Z3z10fu',
	tokenId: 'tok_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	operatorId: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	hint: 'prly_…10fu',
	createdAt: at,
};

export const handoffExample: z.input<typeof handoffSchema> = {
	ref: '7KQ2M9XD',
	channel: 'whatsapp',
	origin: { utmSource: 'google', gclid: 'Cj0KCQ' },
	createdAt: at,
};

export const visitorConversationExample: z.input<typeof visitorConversationSchema> = {
	id: 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	status: 'open',
	lastMessageSeq: 1,
	unread: 0,
	createdAt: at,
	lastMessageAt: at,
};
