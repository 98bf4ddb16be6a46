/**
 * What a conversation's mail is made of, read once when it is sent: the workspace's sender and link origin,
 * the contact, the messages the delivery carries (by seq, never the private notes or the customer's own),
 * their authors, their files (from R2, attached up to a size and linked above it), the conversation's earlier
 * Message-IDs and its subject. It answers either the mail to hand to the provider or why it must not go.
 */
import { and, asc, desc, eq, gte, inArray, isNotNull, lte, ne } from 'drizzle-orm';
import { FILE_LINK_TTL_MS, signMailLink } from '../../../auth/mail-link-token';
import { replyLocalPart } from '../../../auth/mail-reply-token';
import type { Database } from '../../../db/client';
import {
	contacts,
	conversations,
	inboundMails,
	mailThreads,
	messages,
	operators,
	workspaces,
} from '../../../db/schema';
import { type ComposedMail, composeMail, type MailFile, type MailMessage } from '../../../engines/mail/compose';
import type { DeliveryRow } from './deliveries';
import { emailSettingsRow, NO_SENDER, replyDomainOf } from './settings';

/** A file up to this size is attached; a larger one is a signed link. */
export const MAX_ATTACHED_BYTES = 5 * 1024 * 1024;
/** All attached files of one mail together: past this, the rest are links (the provider's limit is larger). */
export const MAX_ATTACHED_TOTAL = 10 * 1024 * 1024;
/** The Message-IDs of earlier mail the threading headers draw from (the newest). */
const THREAD_IDS = 50;

/** The binding's attachment, as `env.EMAIL.send` takes it. */
export interface MailAttachment {
	content: ArrayBuffer;
	filename: string;
	type: string;
	disposition: 'attachment';
}

export type BuiltMail = { mail: ComposedMail & { attachments: MailAttachment[] } } | { skip: string };

// A file a visitor or a mail sent, kept in R2: `…/v3/files/fil_<32 hex>`.
const STORED_FILE = /\/v3\/files\/(fil_[0-9a-f]{32})$/;

/** The `[first, last]` seq range the deliveries cover together. */
function rangeOf(rows: DeliveryRow[]): [number, number] | null {
	const firsts = rows.map((r) => r.firstSeq).filter((n): n is number => n !== null);
	const lasts = rows.map((r) => r.lastSeq).filter((n): n is number => n !== null);
	if (firsts.length === 0 || lasts.length === 0) return null;
	return [Math.min(...firsts), Math.max(...lasts)];
}

/** Each file as attached (its bytes read from R2, within the limits) or as a link. */
async function mailFiles(
	env: Env,
	workspaceId: string,
	linkOrigin: string,
	attachments: Array<{ url: string; name: string; size: number; contentType: string }>,
	budget: { left: number },
	out: MailAttachment[],
	now: number,
): Promise<MailFile[]> {
	const files: MailFile[] = [];
	for (const file of attachments) {
		const stored = STORED_FILE.exec(file.url)?.[1];
		if (stored === undefined) {
			files.push({ name: file.name, attached: false, url: file.url });
			continue;
		}
		if (file.size <= MAX_ATTACHED_BYTES && file.size <= budget.left) {
			const object = await env.FILES.get(`files/${workspaceId}/${stored}`);
			if (object) {
				budget.left -= object.size;
				out.push({
					content: await object.arrayBuffer(),
					filename: file.name,
					type: object.httpMetadata?.contentType ?? file.contentType,
					disposition: 'attachment',
				});
				files.push({ name: file.name, attached: true });
				continue;
			}
		}
		const token = await signMailLink(env, {
			purpose: 'file',
			workspaceId,
			fileId: stored,
			expiresAt: now + FILE_LINK_TTL_MS,
		});
		files.push({ name: file.name, attached: false, url: `${linkOrigin}/mail/files/${token}` });
	}
	return files;
}

/**
 * The mail for the claimed deliveries of one conversation (a continuation, or a burst of replies), or the
 * reason it must not go.
 */
export async function buildConversationMail(
	env: Env,
	db: Database,
	rows: [DeliveryRow, ...DeliveryRow[]],
	now = Date.now(),
): Promise<BuiltMail> {
	const [first] = rows;
	const conversationId = first.conversationId;
	const range = rangeOf(rows);
	if (conversationId === null || range === null) return { skip: 'no conversation messages to carry' };
	const [settings, conversation, workspace] = await Promise.all([
		emailSettingsRow(db, first.workspaceId),
		db
			.select({ contactId: conversations.contactId, unreadByContact: conversations.unreadByContact })
			.from(conversations)
			.where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, first.workspaceId)))
			.get(),
		db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, first.workspaceId)).get(),
	]);
	if (!settings?.senderAddress) return { skip: NO_SENDER };
	if (!conversation || !workspace) return { skip: 'the conversation no longer exists' };
	const replyDomain = replyDomainOf(settings);
	const linkOrigin = settings.linkOrigin;
	if (replyDomain === null || linkOrigin === null) return { skip: 'no link origin: save the e-mail settings again' };
	const contact = await db
		.select({
			email: contacts.email,
			failingAt: contacts.emailFailingAt,
			failure: contacts.emailFailure,
			optOutAt: contacts.continuationOptOutAt,
		})
		.from(contacts)
		.where(and(eq(contacts.id, conversation.contactId), eq(contacts.workspaceId, first.workspaceId)))
		.get();
	if (!contact) return { skip: 'the contact no longer exists' };
	if (contact.failingAt !== null && contact.email === first.recipient) {
		return { skip: `the address is failing${contact.failure ? `: ${contact.failure}` : ''}` };
	}
	if (first.kind === 'continuation') {
		if (!settings.continuationEnabled) return { skip: 'continuation mails are off' };
		if (contact.optOutAt !== null) return { skip: 'the contact stopped continuation mails' };
		if (conversation.unreadByContact === 0) return { skip: 'nothing left unseen' };
	}
	const inRange = await db
		.select()
		.from(messages)
		.where(
			and(
				eq(messages.workspaceId, first.workspaceId),
				eq(messages.conversationId, conversationId),
				gte(messages.seq, range[0]),
				lte(messages.seq, range[1]),
				eq(messages.private, false),
				ne(messages.authorKind, 'contact'),
			),
		)
		.orderBy(asc(messages.seq));
	// A campaign's message (its author the campaign) goes by mail only as an e-mail campaign, with its
	// opt-out and unsubscribe link; a continuation carries the team's replies around it, not it.
	const carried =
		first.kind === 'continuation'
			? inRange.filter((m) => !(m.authorKind === 'bot' && m.authorId?.startsWith('cmp_')))
			: inRange;
	if (carried.length === 0) return { skip: 'nothing to send: no message for the customer in its range' };
	const operatorIds = [
		...new Set(carried.flatMap((m) => (m.authorKind === 'operator' && m.authorId ? [m.authorId] : []))),
	];
	const [names, threads, subject] = await Promise.all([
		operatorIds.length === 0
			? []
			: db
					.select({ id: operators.id, name: operators.name })
					.from(operators)
					.where(and(eq(operators.workspaceId, first.workspaceId), inArray(operators.id, operatorIds))),
		db
			.select({ messageId: mailThreads.messageId })
			.from(mailThreads)
			.where(and(eq(mailThreads.workspaceId, first.workspaceId), eq(mailThreads.conversationId, conversationId)))
			.orderBy(desc(mailThreads.createdAt))
			.limit(THREAD_IDS),
		db
			.select({ subject: inboundMails.subject })
			.from(inboundMails)
			.where(and(eq(inboundMails.conversationId, conversationId), isNotNull(inboundMails.subject)))
			.orderBy(asc(inboundMails.receivedAt))
			.limit(1)
			.get(),
	]);
	const nameOf = new Map(names.map((o) => [o.id, o.name]));
	const attachments: MailAttachment[] = [];
	const budget = { left: MAX_ATTACHED_TOTAL };
	const mailMessages: MailMessage[] = [];
	for (const message of carried) {
		mailMessages.push({
			author: (message.authorId && nameOf.get(message.authorId)) || workspace.name,
			text: message.body,
			interactive: message.interactive ?? null,
			files: await mailFiles(env, first.workspaceId, linkOrigin, message.attachments, budget, attachments, now),
		});
	}
	const stopUrl =
		first.kind === 'continuation'
			? `${linkOrigin}/mail/stop/${await signMailLink(env, { purpose: 'stop', workspaceId: first.workspaceId, contactId: conversation.contactId })}`
			: null;
	const composed = composeMail({
		kind: first.kind,
		from: { address: settings.senderAddress, name: settings.senderName ?? workspace.name },
		to: first.recipient,
		replyTo: `${await replyLocalPart(env, first.workspaceId, conversationId)}@${replyDomain}`,
		conversationSubject: subject?.subject ?? null,
		workspaceName: workspace.name,
		messages: mailMessages,
		threadIds: threads.map((t) => t.messageId).reverse(),
		stopUrl,
		// An operator's own reply is a person's mail; everything else Parley sends on its own.
		automatic: first.kind !== 'reply' || !carried.some((m) => m.authorKind === 'operator'),
	});
	return { mail: { ...composed, attachments } };
}
