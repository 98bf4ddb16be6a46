/**
 * What a file sent in a conversation may be, written once for the Worker and both composers: the kinds taken
 * (told by the first bytes, never by a name or a declared type), the size, and how many go in one send. The
 * Worker refuses by these rules (src/domain/conversations/files.ts); the console's and the widget's composers
 * read the same ones to say why a file will not go before anything is sent.
 */
// No imports: the widget's chat and the console take this file into their bundles, and src/model/messages.ts
// would bring zod with it.

/** The largest file taken, in bytes (10 MiB). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** The most files one send of a composer takes (each goes as a message of its own). */
export const MAX_FILES_PER_SEND = 10;

/** How many first bytes `sniff` needs. */
export const SNIFF_BYTES = 12;

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

/** The media types taken, for a file picker's `accept`. */
export const ACCEPTED_FILE_TYPES = SIGNATURES.map((signature) => signature.type);

/** The kinds of file taken, for messages and the document. */
export const ACCEPTED_FILES = 'PNG, JPEG, GIF or WebP images, and PDF documents';

/** What the bytes are (the first SNIFF_BYTES are enough), or null when they are none of the accepted kinds. */
export function sniff(bytes: Uint8Array): { type: string; extension: string } | null {
	const found = SIGNATURES.find((signature) => signature.test(bytes));
	return found ? { type: found.type, extension: found.extension } : null;
}

/** Why a file cannot be sent: none of the accepted kinds, or too large. */
export type FileProblem = 'type' | 'size';

/**
 * Why a file would be refused, from its size and its first bytes (what the Worker checks), or null when it
 * may go. A browser reads the first bytes with `file.slice(0, SNIFF_BYTES).arrayBuffer()`.
 */
export function fileProblem(size: number, head: Uint8Array): FileProblem | null {
	if (!sniff(head)) return 'type';
	if (size > MAX_FILE_BYTES) return 'size';
	return null;
}

/** Whether an attachment's URL is a file Parley stores (`…/v3/files/fil_…`), and its id. */
export function storedFileId(url: string): string | null {
	return /\/v3\/files\/(fil_[0-9a-f]{32})$/.exec(url)?.[1] ?? null;
}

/**
 * Whether a message's text only names its one file (how a file sent alone is posted): the clients then show
 * the file without repeating its name above it.
 */
export function namesItsFile(message: { text: string; attachments: ReadonlyArray<{ name: string }> }): boolean {
	return message.attachments.length === 1 && message.attachments[0]?.name === message.text;
}
