/**
 * A workspace's mail settings: its sender (name and address on a domain onboarded to Email Sending), the
 * domain its reply addresses use, and the continuation of widget conversations by mail. Until a sender is set
 * no mail goes out, and `sending` says so, for the console to show.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, isNotNull } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { emailSettings } from '../../../db/schema';
import { domainOf, headerText } from '../../../engines/mail/header-safety';
import { emailAddress, MAIL_DOMAIN } from '../../../model/email-address';

export const DEFAULT_CONTINUATION_DELAY_SECONDS = 120;

/** Why no mail can go out, or null when it can. */
export const NO_SENDER = 'no sender set';

const oneLine = (max: number) =>
	z
		.string()
		.trim()
		.min(1)
		.max(max)
		// Refused rather than cleaned: an admin sees what would have been sent (the sender layer cleans anyway).
		.refine((value) => headerText(value, max) === value, 'must be one line without control characters');

export const emailSettingsSchema = z
	.object({
		senderName: z.string().nullable().openapi({ description: 'The From name; null: the workspace’s name.' }),
		senderAddress: z.string().nullable().openapi({
			description:
				'The From address, on a domain the workspace has onboarded to Cloudflare Email Sending; null: no mail is sent.',
		}),
		replyDomain: z.string().nullable().openapi({
			description:
				'The domain of the conversations’ reply addresses (`reply+…@<domain>`), routed to this Worker by Email Routing; null: the sender address’s domain.',
		}),
		continuationEnabled: z
			.boolean()
			.openapi({ description: 'Whether a widget conversation’s unseen team messages are mailed to the contact.' }),
		continuationDelaySeconds: z
			.number()
			.int()
			.openapi({ description: 'How long a team message stays unseen before it is mailed (seconds).' }),
		linkOrigin: z.string().nullable().openapi({
			description:
				'Read-only: the origin links in mail (stop link, files) use, this Worker’s as the last save reached it.',
		}),
		sending: z
			.object({
				ready: z.boolean().openapi({ description: 'Whether mail can go out.' }),
				reason: z
					.string()
					.nullable()
					.openapi({ description: 'Why not (e.g. "no sender set"), or the provider’s last refusal of the sender.' }),
			})
			.openapi({ description: 'Read-only: whether mail can go out, and if not, why.' }),
	})
	.openapi('EmailSettings');
export type EmailSettings = z.infer<typeof emailSettingsSchema>;

export const emailSettingsUpdateSchema = z
	.strictObject({
		senderName: oneLine(100)
			.nullable()
			.optional()
			.openapi({ description: 'The From name (one line); null: the workspace’s name.', example: 'Acme support' }),
		senderAddress: emailAddress()
			.transform((address) => address.toLowerCase())
			.nullable()
			.optional()
			.openapi({
				description: 'The From address, on a domain onboarded to Email Sending; null stops all mail.',
				example: 'support@example.com',
			}),
		replyDomain: z
			.string()
			.trim()
			.toLowerCase()
			.max(253)
			.regex(MAIL_DOMAIN, 'must be a domain such as mail.example.com')
			.nullable()
			.optional()
			.openapi({ description: 'The domain of reply addresses, routed to this Worker; null: the sender’s.' }),
		continuationEnabled: z
			.boolean()
			.optional()
			.openapi({ description: 'Whether unseen team messages of widget conversations are mailed.' }),
		continuationDelaySeconds: z
			.number()
			.int()
			.min(30)
			.max(7 * 86_400)
			.optional()
			.openapi({ description: '30 seconds to 7 days.' }),
	})
	.openapi('EmailSettingsUpdate');
export type EmailSettingsUpdate = z.infer<typeof emailSettingsUpdateSchema>;

type Row = typeof emailSettings.$inferSelect;

function settingsView(row: Row | undefined): EmailSettings {
	const reason = !row?.senderAddress ? NO_SENDER : row.senderError;
	return {
		senderName: row?.senderName ?? null,
		senderAddress: row?.senderAddress ?? null,
		replyDomain: row?.replyDomain ?? null,
		continuationEnabled: row?.continuationEnabled ?? true,
		continuationDelaySeconds: row?.continuationDelaySeconds ?? DEFAULT_CONTINUATION_DELAY_SECONDS,
		linkOrigin: row?.linkOrigin ?? null,
		sending: { ready: reason === null, reason },
	};
}

/** The stored row, or undefined for a workspace that never saved any (the defaults, no sender). */
export async function emailSettingsRow(db: Database, workspaceId: string): Promise<Row | undefined> {
	return db.select().from(emailSettings).where(eq(emailSettings.workspaceId, workspaceId)).get();
}

export async function loadEmailSettings(db: Database, workspaceId: string): Promise<EmailSettings> {
	return settingsView(await emailSettingsRow(db, workspaceId));
}

/** The domain of the workspace's reply addresses: its own, else its sender's; null without either. */
export function replyDomainOf(row: Pick<Row, 'replyDomain' | 'senderAddress'>): string | null {
	if (row.replyDomain) return row.replyDomain;
	return row.senderAddress ? domainOf(row.senderAddress) : null;
}

/**
 * Saves a partial update (fields left out keep their value) and records `linkOrigin`, the origin the request
 * reached this Worker at. A new sender address clears the provider's last refusal of the old one.
 */
export async function saveEmailSettings(
	db: Database,
	workspaceId: string,
	update: EmailSettingsUpdate,
	linkOrigin: string,
	now = Date.now(),
): Promise<EmailSettings> {
	const current = await emailSettingsRow(db, workspaceId);
	const senderChanged = update.senderAddress !== undefined && update.senderAddress !== current?.senderAddress;
	const values = {
		senderName: update.senderName === undefined ? (current?.senderName ?? null) : update.senderName,
		senderAddress: update.senderAddress === undefined ? (current?.senderAddress ?? null) : update.senderAddress,
		replyDomain: update.replyDomain === undefined ? (current?.replyDomain ?? null) : update.replyDomain,
		continuationEnabled: update.continuationEnabled ?? current?.continuationEnabled ?? true,
		continuationDelaySeconds:
			update.continuationDelaySeconds ?? current?.continuationDelaySeconds ?? DEFAULT_CONTINUATION_DELAY_SECONDS,
		linkOrigin,
		senderError: senderChanged ? null : (current?.senderError ?? null),
		updatedAt: now,
	};
	const [row] = await db
		.insert(emailSettings)
		.values({ workspaceId, ...values })
		.onConflictDoUpdate({ target: emailSettings.workspaceId, set: values })
		.returning();
	return settingsView(row);
}

/** Records the provider's refusal of the sender (shown in `sending`), or clears it after a mail went out. */
export function senderErrorStatement(db: Database, workspaceId: string, error: string | null) {
	// Clearing touches the row only when there is something to clear: every sent mail runs it.
	return db
		.update(emailSettings)
		.set({ senderError: error })
		.where(
			and(
				eq(emailSettings.workspaceId, workspaceId),
				error === null ? isNotNull(emailSettings.senderError) : undefined,
			),
		);
}
