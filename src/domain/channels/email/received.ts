/**
 * The received mails as the API shows them: a workspace's list for an admin (what became of each mail), a
 * conversation's mails beside its messages, one mail in detail, and its raw original. The detail reads the
 * raw message again from R2 and runs the engines on it, so what Parley derives (folded text, sanitized HTML)
 * is never stored apart from the original it came from and always follows the current rules.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { conversations, inboundMails } from '../../../db/schema';
import { existsInWorkspace } from '../../../db/scoped';
import { sanitizeMailHtml } from '../../../engines/mail/html';
import { foldPlainText } from '../../../engines/mail/quoted-text';
import { afterNewestFirst, type NewestFirstCursor, pageOf } from '../../../lib/cursor';
import { NotFound } from '../../../lib/errors';
import { iso } from '../../../lib/ids';
import { INBOUND_MAIL_KINDS, INBOUND_MAIL_STATUSES } from '../../../model/email';
import { contentIdKey, mailFileId, planMailFiles } from './mail-files';
import { MalformedMail, parseMail } from './parsed-mail';
import { mailKey } from './posting';

const VERDICTS = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'] as const;
const verdict = (method: string) =>
	z
		.enum(VERDICTS)
		.optional()
		.openapi({ description: `The ${method} verdict; absent when not reported.` });

export const inboundMailSchema = z
	.object({
		id: z.string().openapi({ description: 'The received mail id.', example: 'inm_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		status: z.enum(INBOUND_MAIL_STATUSES).openapi({
			description:
				'`posted`: it became a message; `ignored`: kept, not posted (machine mail, or a redelivery); `rejected`: no inbox or an invalid reply address; `failed`: it could not be read or processed. `received` only while it is processed.',
		}),
		kind: z.enum(INBOUND_MAIL_KINDS).openapi({ description: 'A person’s `message`, or machine mail.' }),
		failure: z.string().nullable().openapi({
			description: 'Why it was not posted, or what was left out of the message (files, cut text); null when nothing.',
		}),
		envelopeFrom: z.string().openapi({ description: 'The SMTP sender; empty for a null return path.' }),
		envelopeTo: z.string().openapi({ description: 'The address it was delivered to.' }),
		subject: z.string().nullable().openapi({ description: 'Its subject, one line; null when it has none.' }),
		headerMessageId: z.string().nullable().openapi({ description: 'Its Message-ID, without angle brackets.' }),
		conversationId: z
			.string()
			.nullable()
			.openapi({ description: 'The conversation it was posted to or shown beside; null for none.' }),
		messageId: z.string().nullable().openapi({ description: 'The message it became, when posted.' }),
		authentication: z
			.object({ spf: verdict('SPF'), dkim: verdict('DKIM'), dmarc: verdict('DMARC') })
			.nullable()
			.openapi({ description: 'The verdicts of the receiving server’s Authentication-Results; null when none.' }),
		possiblyForged: z.boolean().openapi({
			description: 'DMARC failed, or without a DMARC verdict neither SPF nor DKIM passed and one failed.',
		}),
		rawSize: z.number().int().openapi({ description: 'The raw message’s size in bytes.' }),
		receivedAt: z.string().openapi({ description: 'When the Worker received it (ISO 8601).' }),
	})
	.openapi('InboundMail');

const fileSchema = z
	.object({
		name: z
			.string()
			.nullable()
			.openapi({ description: 'Its file name (made safe when stored); null when it had none.' }),
		contentType: z
			.string()
			.openapi({ description: 'Its media type: as its bytes show when stored, else as declared.' }),
		size: z.number().int().openapi({ description: 'Its size in bytes.' }),
		contentId: z.string().nullable().openapi({ description: 'An inline image’s Content-ID, without brackets.' }),
		outcome: z.enum(['attached', 'inline', 'over_limit', 'too_large', 'refused']).openapi({
			description:
				'`attached` and `inline`: stored (at `url`); the others stayed in the original only: over the message’s limit, over 10 MiB, or a kind not shown.',
		}),
		url: z
			.string()
			.nullable()
			.openapi({ description: 'Where the stored file is served; null when it was not stored.' }),
	})
	.openapi('InboundMailFile');

export const inboundMailDetailSchema = inboundMailSchema
	.extend({
		from: z
			.object({
				address: z.string().openapi({ description: 'The From address, lower-case.' }),
				name: z.string().nullable().openapi({ description: 'Its display name.' }),
			})
			.nullable()
			.openapi({ description: 'Who wrote it; null when it could not be read.' }),
		text: z
			.string()
			.nullable()
			.openapi({ description: 'What the sender wrote: quoted history and signature folded out.' }),
		quote: z.string().nullable().openapi({ description: 'The quoted history, folded away.' }),
		signature: z.string().nullable().openapi({ description: 'The signature, folded away.' }),
		html: z.string().nullable().openapi({
			description:
				'The HTML part, sanitized. Remote images have no `src`: theirs is in `data-remote-src` until the operator asks; `data-parley-quote="block"` marks a quote, `"from-here"` a divider after which all is quote.',
		}),
		remoteImages: z.number().int().openapi({ description: 'Images waiting for the operator’s permission to load.' }),
		files: z.array(fileSchema).openapi({ description: 'Its files, in order, with what became of each.' }),
		parseError: z
			.string()
			.nullable()
			.openapi({ description: 'Why the raw message could not be read; null when it could.' }),
	})
	.openapi('InboundMailDetail');

export const inboundMailFiltersSchema = z.object({
	status: z.enum(INBOUND_MAIL_STATUSES).optional().openapi({ description: 'Only mails with this outcome.' }),
});

type Row = typeof inboundMails.$inferSelect;

function view(row: Row): z.infer<typeof inboundMailSchema> {
	return {
		id: row.id,
		status: row.status,
		kind: row.kind,
		failure: row.failure,
		envelopeFrom: row.envelopeFrom,
		envelopeTo: row.envelopeTo,
		subject: row.subject,
		headerMessageId: row.headerMessageId,
		conversationId: row.conversationId,
		messageId: row.parleyMessageId,
		authentication: row.authentication,
		possiblyForged: row.possiblyForged,
		rawSize: row.rawSize,
		receivedAt: iso(row.receivedAt),
	};
}

/** The workspace's received mails, newest first, optionally of one status. */
export async function listInboundMails(
	db: Database,
	workspaceId: string,
	filters: z.infer<typeof inboundMailFiltersSchema>,
	after: NewestFirstCursor | null,
	limit: number,
) {
	const rows = await db
		.select()
		.from(inboundMails)
		.where(
			and(
				eq(inboundMails.workspaceId, workspaceId),
				filters.status ? eq(inboundMails.status, filters.status) : undefined,
				afterNewestFirst(inboundMails.receivedAt, inboundMails.id, after),
			),
		)
		.orderBy(desc(inboundMails.receivedAt), desc(inboundMails.id))
		.limit(limit + 1);
	return pageOf(rows, limit, view, (row) => ({ at: row.receivedAt, id: row.id }));
}

/** The mails of a conversation, oldest first (at most 200, the console's side panel). */
export async function conversationMails(db: Database, workspaceId: string, conversationId: string) {
	if (!(await existsInWorkspace(db, conversations, workspaceId, conversationId))) {
		throw new NotFound(`Conversation ${conversationId} not found.`);
	}
	const rows = await db
		.select()
		.from(inboundMails)
		.where(and(eq(inboundMails.workspaceId, workspaceId), eq(inboundMails.conversationId, conversationId)))
		.orderBy(asc(inboundMails.receivedAt), asc(inboundMails.id))
		.limit(200);
	return rows.map(view);
}

async function mailRow(db: Database, workspaceId: string, id: string): Promise<Row> {
	const row = await db
		.select()
		.from(inboundMails)
		.where(and(eq(inboundMails.workspaceId, workspaceId), eq(inboundMails.id, id)))
		.get();
	if (!row) throw new NotFound(`Received mail ${id} not found.`);
	return row;
}

/** One received mail in detail (see the module's comment). `origin` makes the stored files' links. */
export async function inboundMailDetail(env: Env, db: Database, workspaceId: string, id: string, origin: string) {
	const row = await mailRow(db, workspaceId, id);
	const empty = { from: null, text: null, quote: null, signature: null, html: null, remoteImages: 0, files: [] };
	const object = await env.FILES.get(row.rawKey);
	if (!object) return { ...view(row), ...empty, parseError: 'The raw message is missing from storage.' };
	const raw = await object.arrayBuffer();
	let parsed: Awaited<ReturnType<typeof parseMail>>;
	try {
		parsed = await parseMail(raw, row.envelopeFrom);
	} catch (error) {
		if (!(error instanceof MalformedMail)) throw error;
		return { ...view(row), ...empty, parseError: error.message };
	}
	// Files were stored only for a mail that was posted (or a redelivery of one).
	const stored = row.parleyMessageId !== null;
	const key = await mailKey(parsed, raw);
	const inline: Record<string, string> = {};
	const files = [];
	for (const file of planMailFiles(parsed.attachments, parsed.email.html ?? null)) {
		const kept = stored && (file.outcome === 'attached' || file.outcome === 'inline');
		const url = kept ? `${origin}/v3/files/${await mailFileId(workspaceId, key, file.index)}` : null;
		const contentId = file.part.contentId ? contentIdKey(file.part.contentId) : null;
		if (url && contentId && file.outcome === 'inline') inline[contentId] = url;
		files.push({
			name: file.described?.name ?? file.part.filename,
			contentType: file.described?.contentType ?? file.part.mimeType,
			size:
				file.described?.size ??
				(typeof file.part.content === 'string' ? file.part.content.length : file.part.content.byteLength),
			contentId,
			outcome: file.outcome,
			url,
		});
	}
	const folded = foldPlainText(parsed.text);
	const html = parsed.email.html ? sanitizeMailHtml(parsed.email.html, { inlineImages: inline }) : null;
	return {
		...view(row),
		from: parsed.sender ? { address: parsed.sender, name: parsed.senderName } : null,
		text: folded.visible || null,
		quote: folded.quote,
		signature: folded.signature,
		html: html?.html ?? null,
		remoteImages: html?.remoteImages ?? 0,
		files,
		parseError: null,
	};
}

/** The raw original as a download (`message/rfc822`), never rendered by a browser as a page of the API. */
export async function inboundMailRaw(env: Env, db: Database, workspaceId: string, id: string): Promise<Response> {
	const row = await mailRow(db, workspaceId, id);
	const object = await env.FILES.get(row.rawKey);
	if (!object) throw new NotFound(`The raw message of ${id} is missing from storage.`);
	return new Response(object.body, {
		headers: {
			'Content-Type': 'message/rfc822',
			'Content-Length': String(object.size),
			'Content-Disposition': `attachment; filename="${id}.eml"`,
			'X-Content-Type-Options': 'nosniff',
			'Content-Security-Policy': "default-src 'none'; sandbox",
			'Cache-Control': 'private, max-age=3600',
		},
	});
}
