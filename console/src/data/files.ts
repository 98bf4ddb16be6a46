/**
 * Files the team sends into a conversation: checked here by the Worker's own rules (src/model/files.ts) before
 * anything is sent, then uploaded with XMLHttpRequest, whose upload reports progress (fetch reports none). The
 * message carrying the file comes back in the answer and, like any message, on the conversation's socket.
 */

import { type FileProblem, fileProblem, MAX_FILES_PER_SEND, SNIFF_BYTES } from '../../../src/model/files';
import {
	ApiError,
	BOOKMARK_HEADER,
	bookmarkHeader,
	csrfHeader,
	rememberBookmark,
	type Schemas,
	signedOut,
} from '../api/client';

export { ACCEPTED_FILE_TYPES, MAX_FILE_BYTES, MAX_FILES_PER_SEND } from '../../../src/model/files';

/** Why `file` would be refused (its first bytes and its size, as the Worker checks them), or null. */
export async function checkFile(file: File): Promise<FileProblem | null> {
	const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
	return fileProblem(file.size, head);
}

/** Whether `adding` more files would pass the most one send takes. */
export function tooMany(staged: number, adding: number): boolean {
	return staged + adding > MAX_FILES_PER_SEND;
}

/**
 * Sends `file` into the conversation as the operator's message (a private note with `private`); `progress`
 * hears the fraction uploaded. The key makes a retry of the same send return the same message.
 */
export function uploadFile(
	conversationId: string,
	file: File,
	options: { private: boolean; key: string },
	progress: (fraction: number) => void,
): Promise<Schemas['Message']> {
	const query = new URLSearchParams({ name: file.name, private: String(options.private) });
	return new Promise((resolve, reject) => {
		const request = new XMLHttpRequest();
		request.open('POST', `/v3/conversations/${encodeURIComponent(conversationId)}/files?${query}`);
		request.responseType = 'json';
		request.setRequestHeader('Content-Type', 'application/octet-stream');
		request.setRequestHeader('Idempotency-Key', options.key);
		for (const [name, value] of Object.entries({ ...csrfHeader(), ...bookmarkHeader() })) {
			request.setRequestHeader(name, value);
		}
		request.upload.addEventListener('progress', (event) => {
			if (event.lengthComputable) progress(event.loaded / event.total);
		});
		request.addEventListener('load', () => {
			rememberBookmark(request.getResponseHeader(BOOKMARK_HEADER));
			const body = request.response as (Schemas['Message'] & { message?: string }) | null;
			if (request.status === 201 && body) return resolve(body);
			if (request.status === 401) signedOut();
			reject(new ApiError(request.status, body?.message ?? request.statusText));
		});
		request.addEventListener('error', () => reject(new ApiError(0, 'offline')));
		request.send(file);
	});
}
