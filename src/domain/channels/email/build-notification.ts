/**
 * A notification mail, read once when it is sent: what its key names (src/engines/mail/notification.ts),
 * the member it goes to (still enabled), the conversation's contact and last customer message, the note
 * or the rule's (the bot's) text, and the link to the conversation in the console. It answers the mail or why it must
 * not go (no sender set, the member disabled since, an unanswered conversation taken meanwhile).
 */
import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { contacts, conversations, events, messages, operators, workspaces } from '../../../db/schema';
import {
	composeNotification,
	type NotificationInput,
	type NotificationMail,
	parseNotificationKey,
} from '../../../engines/mail/notification';
import { EVENT_PAYLOADS } from '../../../model/events';
import type { DeliveryRow } from './deliveries';
import { loadNotificationSettings } from './notification-settings';
import { emailSettingsRow, NO_SENDER } from './settings';

export type BuiltNotification = { mail: NotificationMail } | { skip: string };

/** The longest customer message or note a notification quotes; the console has the rest. */
const MAX_QUOTED = 2000;

const cut = (text: string) => (text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text);

/** The console's page of a conversation (console/src/app.tsx, under the console's base path). */
export function consoleConversationUrl(linkOrigin: string, conversationId: string): string {
	return `${linkOrigin}/console/conversations/${encodeURIComponent(conversationId)}`;
}

/** The conversation's contact and the customer's last message, or why there is none to show. */
async function conversationFacts(db: Database, workspaceId: string, conversationId: string) {
	const conversation = await db
		.select({
			assigneeId: conversations.assigneeId,
			firstResponseAt: conversations.firstResponseAt,
			status: conversations.status,
			contactName: contacts.name,
			contactEmail: contacts.email,
		})
		.from(conversations)
		.innerJoin(contacts, eq(contacts.id, conversations.contactId))
		.where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
		.get();
	if (!conversation) return null;
	const last = await db
		.select({ body: messages.body })
		.from(messages)
		.where(
			and(
				eq(messages.workspaceId, workspaceId),
				eq(messages.conversationId, conversationId),
				eq(messages.authorKind, 'contact'),
				eq(messages.private, false),
			),
		)
		.orderBy(desc(messages.seq))
		.limit(1)
		.get();
	return { ...conversation, lastCustomerMessage: last ? cut(last.body) : null };
}

/**
 * Who sent a notify and what it said, from its event: the one `rule` kind covers a rule's notify action
 * (`rule.notification`) and a bot's notify step (`bot.notification`). Nulls when the event is gone.
 */
function notifyOf(event: { type: string; payload: unknown } | undefined) {
	if (event?.type === 'bot.notification') {
		const parsed = EVENT_PAYLOADS['bot.notification'].safeParse(event.payload);
		return { notifier: 'bot' as const, by: parsed.data?.bot.name ?? null, text: parsed.data?.text ?? null };
	}
	const parsed = EVENT_PAYLOADS['rule.notification'].safeParse(event?.payload);
	return { notifier: 'rule' as const, by: parsed.data?.rule.name ?? null, text: parsed.data?.text ?? null };
}

/** The mail for a claimed `notification` delivery, or the reason it must not go. */
export async function buildNotificationMail(db: Database, row: DeliveryRow): Promise<BuiltNotification> {
	const key = parseNotificationKey(row.dedupeKey);
	if (key === null) return { skip: 'not a notification this version of Parley knows' };
	const { workspaceId } = row;
	const [settings, workspace, member] = await Promise.all([
		emailSettingsRow(db, workspaceId),
		db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, workspaceId)).get(),
		db
			.select({ disabledAt: operators.disabledAt })
			.from(operators)
			.where(and(eq(operators.id, key.operatorId), eq(operators.workspaceId, workspaceId)))
			.get(),
	]);
	if (!settings?.senderAddress) return { skip: NO_SENDER };
	if (!workspace) return { skip: 'the workspace no longer exists' };
	if (settings.linkOrigin === null) return { skip: 'no link origin: save the e-mail settings again' };
	if (!member) return { skip: 'the member no longer exists' };
	if (member.disabledAt !== null) return { skip: 'the member is disabled' };
	const facts = key.conversationId === null ? null : await conversationFacts(db, workspaceId, key.conversationId);
	if (key.conversationId !== null && facts === null) return { skip: 'the conversation no longer exists' };
	const input: NotificationInput = {
		kind: key.kind,
		from: { address: settings.senderAddress, name: settings.senderName ?? workspace.name },
		to: row.recipient,
		workspaceName: workspace.name,
		contactLabel: facts ? (facts.contactName ?? facts.contactEmail) : null,
		by: null,
		lastCustomerMessage: facts?.lastCustomerMessage ?? null,
		link: key.conversationId === null ? null : consoleConversationUrl(settings.linkOrigin, key.conversationId),
	};
	if (key.kind === 'unanswered') {
		// Sent seconds after the sweep found it: someone may have taken it since.
		if (facts?.assigneeId || facts?.firstResponseAt || facts?.status === 'closed') {
			return { skip: 'someone took or answered the conversation meanwhile' };
		}
		input.minutes = (await loadNotificationSettings(db, workspaceId, key.operatorId)).unansweredAfterMinutes;
	} else if (key.kind === 'mention') {
		const note = await db
			.select({ body: messages.body, author: operators.name })
			.from(messages)
			.leftJoin(operators, eq(operators.id, messages.authorId))
			.where(and(eq(messages.id, key.ref), eq(messages.workspaceId, workspaceId)))
			.get();
		input.by = note?.author ?? null;
		input.detail = note ? cut(note.body) : null;
	} else if (key.kind === 'rule') {
		const event = await db
			.select({ type: events.type, payload: events.payload })
			.from(events)
			.where(and(eq(events.id, key.ref), eq(events.workspaceId, workspaceId)))
			.get();
		const sent = notifyOf(event);
		input.notifier = sent.notifier;
		input.by = sent.by;
		input.detail = sent.text === null ? null : cut(sent.text);
	}
	return { mail: composeNotification(input) };
}
