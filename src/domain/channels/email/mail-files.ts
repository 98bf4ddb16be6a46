/**
 * A mail's files in R2, through the conversation files' own rules (src/domain/conversations/files.ts): only
 * what the bytes show to be an image or a PDF, 10 MiB at most each, at most a message's MAX_ATTACHMENTS as
 * the message's attachments. Inline images (those the HTML shows by `cid:`) are stored the same way for the
 * mail's HTML to show, and are not listed as attachments (a signature's logo would otherwise be on every
 * message). What the rules leave out stays in the original mail, which is always kept,
 * and the message says so.
 *
 * A file's id comes from the workspace, the mail's key and the part's position, so a redelivered mail
 * stores the same objects again instead of new ones, and the mail's detail finds them without a table.
 */
import type { Attachment } from 'postal-mime';
import { sha256Hex } from '../../../auth/token';
import { PayloadTooLarge } from '../../../lib/errors';
import { type AttachmentMeta, MAX_ATTACHMENTS } from '../../../model/messages';
import { type DescribedFile, describeFile, putFile } from '../../conversations/files';

/** Inline images stored per mail, past which a signature's or newsletter's images stay in the original. */
export const MAX_INLINE_IMAGES = 20;

/** The id of the file stored from part `index` of the mail `mailKey`. */
export async function mailFileId(workspaceId: string, mailKey: string, index: number): Promise<string> {
	return `fil_${(await sha256Hex(`mail\n${workspaceId}\n${mailKey}\n${index}`)).slice(0, 32)}`;
}

/**
 * Whether the part is an inline image the HTML shows by its Content-ID. Apple Mail also gives a Content-ID to
 * images merely attached: one the HTML never names is an attachment like any other.
 */
export function isInlineImage(part: Attachment, html: string | null): boolean {
	if (part.contentId === undefined || !html) return false;
	const key = contentIdKey(part.contentId);
	return html.toLowerCase().includes(`cid:${key}`);
}

/** A Content-ID as `cid:` URLs name it: without angle brackets, lower-case. */
export function contentIdKey(contentId: string): string {
	return contentId.replace(/^<|>$/g, '').trim().toLowerCase();
}

/** What becomes of one of a mail's files under the rules. */
export type FileOutcome = 'attached' | 'inline' | 'over_limit' | 'too_large' | 'refused';

export interface PlannedFile {
	/** The part's position among the mail's files: what its stored id is made from. */
	index: number;
	part: Attachment;
	outcome: FileOutcome;
	/** What the bytes are, under a safe name; null unless it is stored. */
	described: DescribedFile | null;
}

function bytesOf(part: Attachment): Uint8Array {
	return typeof part.content === 'string' ? new TextEncoder().encode(part.content) : new Uint8Array(part.content);
}

/** What the rules make of each of a mail's files, in order (pure: the inbound path and the detail agree). */
export function planMailFiles(parts: readonly Attachment[], html: string | null): PlannedFile[] {
	let attached = 0;
	let inlined = 0;
	return parts.map((part, index) => {
		const inline = isInlineImage(part, html);
		if (inline ? inlined >= MAX_INLINE_IMAGES : attached >= MAX_ATTACHMENTS) {
			return { index, part, outcome: 'over_limit', described: null };
		}
		let described: DescribedFile | null;
		try {
			described = describeFile(part.filename ?? undefined, bytesOf(part));
		} catch (error) {
			if (!(error instanceof PayloadTooLarge)) throw error;
			return { index, part, outcome: 'too_large', described: null };
		}
		if (!described) return { index, part, outcome: 'refused', described: null };
		if (inline) inlined++;
		else attached++;
		return { index, part, outcome: inline ? 'inline' : 'attached', described };
	});
}

export interface StoredFiles {
	attachments: AttachmentMeta[];
	/** What stayed in the original only, in words for the message and the admin. */
	leftOut: string[];
}

const LEFT_OUT: Record<Exclude<FileOutcome, 'attached' | 'inline'>, string> = {
	over_limit: 'more file(s) than a message carries are in the original mail',
	too_large: 'file(s) over 10 MiB are in the original mail',
	refused: 'file(s) of a kind not shown (only images and PDFs) are in the original mail',
};

/**
 * Stores the mail's files of a conversation and returns them as the message's attachments. `origin` is the
 * API's origin the links are made from; without one nothing can be linked and everything stays in the original.
 */
export async function storeMailFiles(
	env: Env,
	workspaceId: string,
	conversationId: string,
	mailKey: string,
	parts: readonly Attachment[],
	html: string | null,
	origin: string | null,
): Promise<StoredFiles> {
	const stored: StoredFiles = { attachments: [], leftOut: [] };
	if (parts.length === 0) return stored;
	// A message's attachments are https links: under plain-HTTP local development nothing can be linked.
	if (!origin?.startsWith('https://')) {
		stored.leftOut.push(`${parts.length} file(s) are in the original mail (no https API origin to link them from)`);
		return stored;
	}
	const counts = { over_limit: 0, too_large: 0, refused: 0 };
	for (const file of planMailFiles(parts, html)) {
		if (file.outcome !== 'attached' && file.outcome !== 'inline') {
			counts[file.outcome]++;
			continue;
		}
		const described = file.described as DescribedFile;
		const id = await mailFileId(workspaceId, mailKey, file.index);
		await putFile(env, workspaceId, conversationId, id, described, bytesOf(file.part));
		if (file.outcome === 'attached') {
			const { name, contentType, size } = described;
			stored.attachments.push({ url: `${origin}/v3/files/${id}`, name, contentType, size });
		}
	}
	for (const [outcome, count] of Object.entries(counts) as [keyof typeof counts, number][]) {
		if (count > 0) stored.leftOut.push(`${count} ${LEFT_OUT[outcome]}`);
	}
	return stored;
}
