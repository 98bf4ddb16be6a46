/**
 * A file sent as a message, by a visitor (the widget) or the team (the console, the API): told by its bytes,
 * stored in R2, and posted as a message that carries it, the one shape every client shows (the text is the
 * file's name, the attachment its URL `/v3/files/{id}`, name, type and size). A refused file stores nothing.
 */
import { UnsupportedMediaType } from '../../lib/errors';
import { ACCEPTED_FILES } from '../../model/files';
import { conversationRoom } from '../objects';
import { deleteFile, describeFile, fileId, putFile } from './files';
import { type Posted, posted, postMessage } from './live';
import type { MessageCommand } from './message-command';

export interface FileSend {
	workspaceId: string;
	conversationId: string;
	/** The sender as the file's id knows it: the visitor's id, or `op:` and the operator's. */
	sender: string;
	/** The message's author, as `postMessage` takes it. */
	author: Pick<MessageCommand, 'authorKind' | 'authorId'>;
	/** The name the sender gave the file (made safe, and given the extension of what it is). */
	name: string | undefined;
	bytes: Uint8Array;
	/** The sender's id for this send: the file's id and the message's client id come from it. */
	clientKey: string;
	/** The client message id the room stores (the visitor's and an API key's are namespaced differently). */
	clientMessageId: string | null;
	/** A private note's file: the visitor's side never serves it. */
	private: boolean;
	/** The origin of the file URLs (`https://<host>`). */
	origin: string;
}

/**
 * Stores a file and posts the message carrying it. In order: what the bytes are (a 415 or 413 before
 * anything); a retry of the same send, answered from the stored message; then `before` (a visitor's limits),
 * the file, the message. A message the room refuses after the file was stored (a closed conversation, a
 * closed WhatsApp window) takes its file away again.
 */
export async function postFileMessage(
	env: Env,
	send: FileSend,
	before: () => Promise<void> = async () => {},
): Promise<Posted> {
	const file = describeFile(send.name, send.bytes);
	if (!file) throw new UnsupportedMediaType(`Send ${ACCEPTED_FILES}: this file is none of them.`);
	const id = await fileId(send.sender, send.conversationId, send.clientKey);
	const command: MessageCommand = {
		workspaceId: send.workspaceId,
		conversationId: send.conversationId,
		...send.author,
		text: file.name,
		attachments: [{ url: `${send.origin}/v3/files/${id}`, ...file }],
		private: send.private,
		clientMessageId: send.clientMessageId,
	};
	const room = conversationRoom(env, send.conversationId);
	const replay = await room.replay(command);
	if (replay.status !== 'absent') return posted(replay, send.conversationId);
	await before();
	await putFile(env, send.workspaceId, send.conversationId, id, file, send.bytes, send.private);
	try {
		return await postMessage(env, command);
	} catch (error) {
		// Kept if the same send was stored meanwhile (a concurrent retry): its message carries this file.
		if ((await room.replay(command)).status === 'absent') await deleteFile(env, send.workspaceId, id);
		throw error;
	}
}
