/**
 * A WhatsApp message's file in R2, through the conversation files' own rules (src/domain/conversations/files.ts),
 * as mail's are: only what the bytes show to be an image or a PDF, 10 MiB at most. What the rules leave out
 * (a voice note, a video, a file over the limit) stays in WhatsApp, and the message says so. A file of a
 * kind the rules refuse by its declared type is not even downloaded.
 *
 * The file's id comes from the workspace and the wamid, so a redelivery stores the same object again.
 */
import { sha256Hex } from '../../../auth/token';
import type { Database } from '../../../db/client';
import type { InboundContent } from '../../../engines/whatsapp/inbound';
import { OutboundError } from '../../../lib/guarded-fetch';
import type { AttachmentMeta } from '../../../model/messages';
import { describeFile, MAX_FILE_BYTES, putFile } from '../../conversations/files';
import { GraphError, graphMedia, MediaTooLarge, type OpenNumber } from './graph';

/** The id of the file stored from the WhatsApp message `wamid`. */
export async function whatsappFileId(workspaceId: string, wamid: string): Promise<string> {
	return `fil_${(await sha256Hex(`whatsapp\n${workspaceId}\n${wamid}`)).slice(0, 32)}`;
}

/** Declared types the file rules may accept (the bytes decide): images and PDFs. */
function mayBeKept(mimeType: string | undefined): boolean {
	if (!mimeType) return true;
	const type = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
	return type.startsWith('image/') || type === 'application/pdf';
}

const MIB = 1024 * 1024;

export interface StoredMedia {
	attachments: AttachmentMeta[];
	/** Why the file is not attached, in words for the message; null when it is. */
	note: string | null;
}

/**
 * Fetches the message's file with the number's token and stores it for the conversation. A download that
 * may work later (Meta's temporary errors, no answer) throws: the message is recorded failed and Meta's
 * redelivery tries again. One that never will is posted with a note instead.
 */
export async function storeWhatsappMedia(
	ctx: { env: Env; db: Database; number: OpenNumber; origin: string },
	conversationId: string,
	wamid: string,
	content: Extract<InboundContent, { kind: 'media' }>,
): Promise<StoredMedia> {
	const { env, number } = ctx;
	const declared = content.media.mime_type;
	if (!mayBeKept(declared)) {
		return { attachments: [], note: `the ${declared} file stays in WhatsApp: only images and PDFs are kept` };
	}
	// A message's attachments are https links: under plain-HTTP local development nothing can be linked.
	if (!ctx.origin.startsWith('https://')) {
		return { attachments: [], note: 'the file stays in WhatsApp (no https API origin to link it from)' };
	}
	let file: Awaited<ReturnType<typeof graphMedia>>;
	try {
		file = await graphMedia(env, number, content.media.id, MAX_FILE_BYTES);
	} catch (error) {
		if (error instanceof MediaTooLarge) {
			const size = error.size === null ? '' : ` (${(error.size / MIB).toFixed(1)} MiB)`;
			return { attachments: [], note: `the file${size} is over ${MAX_FILE_BYTES / MIB} MiB: it stays in WhatsApp` };
		}
		if (error instanceof GraphError && !error.retryable) {
			return { attachments: [], note: `the file could not be fetched from WhatsApp (${error.title})` };
		}
		// Refused by a rule (a media URL on no Meta host): a retry would be refused the same way.
		if (error instanceof OutboundError && !error.transient) {
			return { attachments: [], note: `the file could not be fetched from WhatsApp (${error.message})` };
		}
		throw error;
	}
	const described = describeFile(content.media.filename, file.bytes);
	if (!described) {
		return { attachments: [], note: `the ${file.mimeType} file stays in WhatsApp: only images and PDFs are kept` };
	}
	const id = await whatsappFileId(number.workspaceId, wamid);
	await putFile(env, number.workspaceId, conversationId, id, described, file.bytes);
	const { name, contentType, size } = described;
	return { attachments: [{ url: `${ctx.origin}/v3/files/${id}`, name, contentType, size }], note: null };
}
