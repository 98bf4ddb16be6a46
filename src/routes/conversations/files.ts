import { createRoute, z } from '@hono/zod-openapi';
import { noteBookmark } from '../../db/sessions';
import { postFileMessage } from '../../domain/conversations/file-messages';
import { fileDownload } from '../../domain/conversations/files';
import { errorResponses, fileBytesBody, idempotencyHeaders, idParam, jsonResponse, requires } from '../../http/openapi';
import { messageExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { ACCEPTED_FILES, MAX_FILE_BYTES } from '../../model/files';
import { messageSchema } from '../../model/messages';

const idParams = z.object({ id: idParam('id', 'fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0', 'The file id.') });

/** `GET /v3/files/{id}`: a stored file, for the team. */
export const filesRoutes = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/{id}',
		operationId: 'downloadFile',
		summary: 'Download a file sent in a conversation',
		description:
			'The bytes of a file sent in a conversation of the workspace, by a visitor or the team (the URL of its message’s attachment, and the `ref` a bot keeps in its variable), as a download: `Content-Disposition: attachment`, its type as sniffed on upload.',
		...requires('conversations:read'),
		request: { params: idParams },
		responses: {
			200: {
				description: 'The file.',
				content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
			},
			...errorResponses(403, 404),
		},
	}),
	(c) => fileDownload(c.env, c.var.caller.workspaceId, c.req.valid('param').id),
);

/** `POST /v3/conversations/{id}/files`: the team sends a file, as a reply or in a private note. */
export const conversationFilesRoutes = createRouter().openapi(
	createRoute({
		method: 'post',
		path: '/{id}/files',
		operationId: 'sendFile',
		summary: 'Send a file into a conversation',
		description: `The body is the file itself (${MAX_FILE_BYTES / 1024 / 1024} MiB at most): ${ACCEPTED_FILES}, told by its first bytes, whatever its name or Content-Type say (anything else is a 415, a larger one a 413; nothing is stored). It is stored and posted as the token's operator's message carrying it (its text is the file's name), which the visitor's widget shows live (an image inline, a PDF as a link), unless \`private=true\` makes it a note only the team sees. Send an \`Idempotency-Key\` to make a retry return the stored message instead of a second file.`,
		...requires('messages:send'),
		request: {
			params: z.object({ id: idParam('id', 'conv_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', 'The conversation.') }),
			headers: idempotencyHeaders,
			query: z.object({
				name: z.string().max(255).optional().openapi({ description: 'The file’s name, as shown.' }),
				private: z
					.enum(['true', 'false'])
					.default('false')
					.openapi({ description: '`true`: a private note for the team, never shown to the visitor.' }),
			}),
			body: fileBytesBody,
		},
		responses: {
			201: jsonResponse('The stored message carrying the file (also for a retried Idempotency-Key).', messageSchema, {
				...messageExample,
				text: 'invoice.pdf',
				attachments: [
					{
						url: 'https://api.parley.example/v3/files/fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0',
						name: 'invoice.pdf',
						contentType: 'application/pdf',
						size: 48213,
					},
				],
			}),
			// 409: a closed WhatsApp window (as for POST /v3/messages).
			...errorResponses(403, 404, 409, 413, 415, 422),
		},
	}),
	async (c) => {
		const { id } = c.req.valid('param');
		const query = c.req.valid('query');
		const key = c.req.valid('header')['idempotency-key'];
		const { workspaceId, operatorId } = c.var.caller;
		const result = await postFileMessage(c.env, {
			workspaceId,
			conversationId: id,
			sender: `op:${operatorId}`,
			author: { authorKind: 'operator', authorId: operatorId },
			name: query.name,
			bytes: new Uint8Array(await c.req.arrayBuffer()),
			// Without a key each send is a file of its own.
			clientKey: key ?? crypto.randomUUID(),
			// Keys are per operator, as POST /v3/messages's.
			clientMessageId: key === undefined ? null : `api:${operatorId}:${key}`,
			private: query.private === 'true',
			// Always https: the deployment is, and message attachments are https links.
			origin: `https://${new URL(c.req.url).host}`,
		});
		// The room wrote the message to D1: its bookmark lets the console's next read include it.
		noteBookmark(c.var.db, result.d1Bookmark);
		if (!result.created) c.header('Idempotent-Replayed', 'true');
		return c.json(result.message, 201);
	},
);
