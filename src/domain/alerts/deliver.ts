/**
 * The events consumer's part in alerting the team: who an event alerts (src/engines/alerts.ts), narrowed to
 * those who chose that kind (their notification settings), then delivered: to each one's open consoles through
 * the workspace's hub (an `alert` frame on its inbox feed: the console chimes if chosen, and shows a desktop
 * notification while its tab is hidden), and by Web Push to the browsers of those with no console open.
 * At least once, as the Queue delivers: a redelivered event alerts again under the same alert id, which a
 * browser shows as the one notification (its `tag`).
 */
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { contacts, conversations } from '../../db/schema';
import { type AlertConversation, alertTargets, conversationToRead, mayAlert } from '../../engines/alerts';
import { type Alert, alertText } from '../../model/alerts';
import type { DomainEvent } from '../../model/events';
import { workspaceHub } from '../objects';
import { TeamReads } from '../team/team-reads';
import { type PushEnv, pushAlert } from './push';
import { subscriptionsOf } from './push-subscriptions';
import { operatorsAlerted } from './settings';

/** The conversation a message event concerns, with its contact (for the alert's title). */
async function conversationOf(db: Database, workspaceId: string, id: string) {
	return db
		.select({
			assigneeId: conversations.assigneeId,
			groupId: conversations.groupId,
			contactId: conversations.contactId,
		})
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
		.get();
}

/** The contact's name, else e-mail, else phone; null for one known by nothing. */
async function contactTitle(db: Database, workspaceId: string, contactId: string): Promise<string | null> {
	const row = await db
		.select({ name: contacts.name, email: contacts.email, phone: contacts.phone })
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, contactId)))
		.get();
	return row?.name ?? row?.email ?? row?.phone ?? null;
}

/** The contact a conversation event names. */
function contactOfEvent(event: DomainEvent): string | null {
	if (event.type === 'conversation.created' || event.type === 'conversation.updated') {
		return event.payload.conversation.contactId;
	}
	if (event.type === 'rule.notification' || event.type === 'bot.notification') return event.payload.contactId;
	return null;
}

/** The rule or the bot that sent a notification (its alert's title); undefined for any other event. */
function notifierOf(event: DomainEvent): string | undefined {
	if (event.type === 'rule.notification') return event.payload.rule.name;
	if (event.type === 'bot.notification') return event.payload.bot.name;
	return undefined;
}

/**
 * Alerts whoever `event` concerns; returns the alert and whom it reached how (for the tests and the log).
 * `reads` is the batch's view of the team (src/domain/team/team-reads.ts).
 */
export async function alertTeam(
	env: Env & PushEnv,
	db: Database,
	event: DomainEvent,
	reads = new TeamReads(env, db),
): Promise<{ alert: Alert; inConsole: string[]; pushed: string[] } | null> {
	if (!mayAlert(event)) return null;
	const toRead = conversationToRead(event);
	// Read side by side; a customer's message alerts only its conversation's assignee: none, no alert.
	const [conversation, members] = await Promise.all([
		toRead ? conversationOf(db, event.workspaceId, toRead) : undefined,
		reads.enabledMembers(event.workspaceId),
	]);
	if (toRead && !conversation?.assigneeId) return null;
	const facts: AlertConversation | null = conversation ?? null;
	const targets = alertTargets(event, members, facts);
	if (targets === null) return null;
	const contactId = conversation?.contactId ?? contactOfEvent(event);
	const [{ alerted, chiming }, title] = await Promise.all([
		reads.savedSettings(event.workspaceId).then((saved) => operatorsAlerted(saved, targets.kind, targets.operatorIds)),
		notifierOf(event) ?? (contactId ? contactTitle(db, event.workspaceId, contactId) : null),
	]);
	if (alerted.size === 0) return null;
	const alert: Alert = {
		id: event.id,
		kind: targets.kind,
		conversationId: targets.conversationId,
		title,
		contactId,
		text: alertText(targets.text),
		at: event.occurredAt,
	};
	const ids = [...alerted];
	const inConsole = await workspaceHub(env, event.workspaceId).alert(ids, alert, [...chiming]);
	const away = ids.filter((id) => !inConsole.includes(id));
	const pushed: string[] = [];
	if (away.length > 0) {
		const subscriptions = await subscriptionsOf(db, event.workspaceId, away);
		const results = await Promise.all(subscriptions.map((s) => pushAlert(env, db, s, alert)));
		subscriptions.forEach((s, i) => {
			if (results[i] === 'sent' && !pushed.includes(s.operatorId)) pushed.push(s.operatorId);
		});
	}
	return { alert, inConsole, pushed };
}
