/**
 * Files sent in a conversation (by a visitor from the widget, an operator from the console or the API, a
 * customer by mail or WhatsApp), kept in R2 under their workspace. What a file is comes from its first bytes,
 * never from its name or the Content-Type the browser sent: the kinds and the size are src/model/files.ts's.
 * The message carries the file as an attachment whose URL is `GET /v3/files/{id}`, which operators open with
 * their token; the visitor reads the files of their own conversation through the widget's endpoint.
 */
import { sha256Hex } from '../../auth/token';
import { NotFound, PayloadTooLarge } from '../../lib/errors';
import { MAX_FILE_BYTES, sniff } from '../../model/files';

export { ACCEPTED_FILES, MAX_FILE_BYTES, sniff } from '../../model/files';

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
 * A file's id from its sender (the visitor's id, or `op:` and the operator's), the conversation and the client
 * message id: a retried upload (its message answered as a replay before anything is stored) names the same
 * object, and no other send can reach it.
 */
export async function fileId(sender: string, conversationId: string, clientMessageId: string): Promise<string> {
	return `fil_${(await sha256Hex(`${sender}\n${conversationId}\n${clientMessageId}`)).slice(0, 32)}`;
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

/**
 * Stores an upload described by `describeFile`, under its workspace. `teamOnly`: it goes in a private note,
 * so the visitor's side never serves it (`visitorFileDownload`).
 */
export async function putFile(
	env: Env,
	workspaceId: string,
	conversationId: string,
	id: string,
	file: DescribedFile,
	bytes: Uint8Array,
	teamOnly = false,
): Promise<void> {
	await env.FILES.put(key(workspaceId, id), bytes, {
		httpMetadata: { contentType: file.contentType },
		customMetadata: { name: file.name, conversationId, ...(teamOnly ? { teamOnly: '1' } : {}) },
	});
}

/** Removes a stored file (one whose message was refused after it was stored). */
export async function deleteFile(env: Env, workspaceId: string, id: string): Promise<void> {
	await env.FILES.delete(key(workspaceId, id));
}

async function storedFile(env: Env, workspaceId: string, id: string): Promise<R2ObjectBody> {
	const object = /^fil_[0-9a-f]{32}$/.test(id) ? await env.FILES.get(key(workspaceId, id)) : null;
	if (!object) throw new NotFound(`File ${id} not found.`);
	return object;
}

/** A stored file of the workspace, as a download: its bytes with the type it was sniffed as. */
export async function fileDownload(env: Env, workspaceId: string, id: string): Promise<Response> {
	return download(await storedFile(env, workspaceId, id), id);
}

/**
 * A file of the visitor's conversation, as the widget reads it: only one sent in that conversation and not in
 * a private note; any other is not found, as if it did not exist.
 */
export async function visitorFileDownload(
	env: Env,
	workspaceId: string,
	conversationId: string,
	id: string,
): Promise<Response> {
	const object = await storedFile(env, workspaceId, id);
	const meta = object.customMetadata ?? {};
	if (meta.conversationId !== conversationId || meta.teamOnly === '1') {
		await object.body.cancel();
		throw new NotFound(`File ${id} not found.`);
	}
	return download(object, id);
}

function download(object: R2ObjectBody, id: string): Response {
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
