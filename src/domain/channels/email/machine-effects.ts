/**
 * What machine mail changes, since it is never posted: a bounce marks the failed address of the workspace's
 * contact as failing (so nothing keeps mailing a dead address) and, when its report returns the Message-ID
 * of a mail Parley sent, marks that delivery failed with the remote server's words.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { contacts, mailDeliveries } from '../../../db/schema';
import { singleLine } from '../../../engines/mail/headers';
import type { MachineMail } from '../../../engines/mail/machine-mail';

/** What a bounce changed, for the inbound mail's record. */
export interface BounceEffects {
	contactsMarked: number;
	deliveriesFailed: number;
}

/** The failure text of a failed recipient: its status and the remote server's words, one line. */
function failureText(recipient: MachineMail['failed'][number]): string {
	return singleLine([recipient.status, recipient.diagnostic].filter(Boolean).join(' '), 500) || 'bounced';
}

/** Applies a bounce in the workspace (see the module's comment). */
export async function applyBounce(
	db: Database,
	workspaceId: string,
	bounce: MachineMail,
	now: number,
): Promise<BounceEffects> {
	let contactsMarked = 0;
	for (const recipient of bounce.failed) {
		const marked = await db
			.update(contacts)
			.set({ emailFailingAt: now, emailFailure: failureText(recipient) })
			.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.email, recipient.address)))
			.returning({ id: contacts.id });
		contactsMarked += marked.length;
	}
	let deliveriesFailed = 0;
	if (bounce.bouncedMessageId) {
		const first = bounce.failed[0];
		const failed = await db
			.update(mailDeliveries)
			.set({ status: 'failed', error: first ? `bounced: ${failureText(first)}` : 'bounced', updatedAt: now })
			.where(
				and(
					eq(mailDeliveries.workspaceId, workspaceId),
					eq(mailDeliveries.headerMessageId, bounce.bouncedMessageId),
					// A bounce comes after the send: only a mail handed to the provider can bounce.
					inArray(mailDeliveries.status, ['sending', 'sent']),
				),
			)
			.returning({ id: mailDeliveries.id });
		deliveriesFailed = failed.length;
	}
	return { contactsMarked, deliveriesFailed };
}
