/**
 * Files visitors upload in a conversation (a bot's Data Entry file step), kept in R2 under their workspace.
 * What a file is comes from its first bytes, never from its name or the Content-Type the browser sent: only
 * images (PNG, JPEG, GIF, WebP) and PDFs are taken, up to MAX_FILE_BYTES. The visitor's message carries the
 * file as an attachment whose URL is `GET /v3/files/{id}`, which operators open with their token.
 */
import { sha256Hex } from '../../auth/token';
import { NotFound, PayloadTooLarge } from '../../lib/errors';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;

const SIGNATURES: Array<{ type: string; extension: string; test: (b: Uint8Array) => boolean }> = [
	{ type: 'image/png', extension: 'png', test: (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
	{ type: 'image/jpeg', extension: 'jpg', test: (b) => starts(b, [0xff, 0xd8, 0xff]) },
	{ type: 'image/gif', extension: 'gif', test: (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a') },
	{ type: 'image/webp', extension: 'webp', test: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP') },
	{ type: 'application/pdf', extension: 'pdf', test: (b) => ascii(b, 0, '%PDF-') },
];

function starts(bytes: Uint8Array, prefix: number[]): boolean {
	return prefix.every((byte, i) => bytes[i] === byte);
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
	return [...text].every((char, i) => bytes[at + i] === char.charCodeAt(0));
}

/** The kinds of file taken, for messages and the document. */
export const ACCEPTED_FILES = 'PNG, JPEG, GIF or WebP images, and PDF documents';

/** What the bytes are, or null when they are none of the accepted kinds. */
export function sniff(bytes: Uint8Array): { type: string; extension: string } | null {
	const found = SIGNATURES.find((signature) => signature.test(bytes));
	return found ? { type: found.type, extension: found.extension } : null;
}

/**
 * A file name safe to show and to put in a header: no path, no control or quote characters, 120 characters at
 * most, ending in the extension of what the file is ("invoice.exe" that is a PDF becomes "invoice.exe.pdf").
 */
export function safeFileName(raw: string | undefined, extension: string): string {
	const base = (raw ?? '')
		.split(/[\\/]/)
		.pop()
		// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
		?.replace(/[\u0000-\u001f\u007f"]/g, '')
		// Format characters too: a right-to-left override would show "invoice\u202Efdp.exe" as "invoiceexe.pdf".
		.replace(/\p{Cf}/gu, '')
		.trim()
		.slice(0, 120);
	const name = base || `upload.${extension}`;
	return name.toLowerCase().endsWith(`.${extension}`) || (extension === 'jpg' && /\.jpe?g$/i.test(name))
		? name
		: `${name}.${extension}`;
}

const key = (workspaceId: string, id: string) => `files/${workspaceId}/${id}`;

/**
 * A file's id from the visitor, the conversation and the client message id: a retried upload (its message
 * answered as a replay before anything is stored) names the same object, and no other send can reach it.
 */
export async function fileId(visitorId: string, conversationId: string, clientMessageId: string): Promise<string> {
	return `fil_${(await sha256Hex(`${visitorId}\n${conversationId}\n${clientMessageId}`)).slice(0, 32)}`;
}

export interface DescribedFile {
	name: string;
	contentType: string;
	size: number;
}

/** What an upload is (from its bytes), under a safe name; null when it is none of the accepted kinds. */
export function describeFile(rawName: string | undefined, bytes: Uint8Array): DescribedFile | null {
	if (bytes.byteLength > MAX_FILE_BYTES)
		throw new PayloadTooLarge(`A file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MiB.`);
	const kind = sniff(bytes);
	if (!kind) return null;
	return { name: safeFileName(rawName, kind.extension), contentType: kind.type, size: bytes.byteLength };
}

/** Stores an upload described by `describeFile`, under its workspace. */
export async function putFile(
	env: Env,
	workspaceId: string,
	conversationId: string,
	id: string,
	file: DescribedFile,
	bytes: Uint8Array,
): Promise<void> {
	await env.FILES.put(key(workspaceId, id), bytes, {
		httpMetadata: { contentType: file.contentType },
		customMetadata: { name: file.name, conversationId },
	});
}

/** A stored file of the workspace, as a download: its bytes with the type it was sniffed as. */
export async function fileDownload(env: Env, workspaceId: string, id: string): Promise<Response> {
	const object = /^fil_[0-9a-f]{32}$/.test(id) ? await env.FILES.get(key(workspaceId, id)) : null;
	if (!object) throw new NotFound(`File ${id} not found.`);
	const name = object.customMetadata?.name ?? id;
	return new Response(object.body, {
		headers: {
			'Content-Type': object.httpMetadata?.contentType ?? 'application/octet-stream',
			'Content-Length': String(object.size),
			// Never rendered as a page of the API's origin, whatever it holds.
			'Content-Disposition': `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
			'X-Content-Type-Options': 'nosniff',
			'Content-Security-Policy': "default-src 'none'; sandbox",
			'Cache-Control': 'private, max-age=3600',
		},
	});
}
