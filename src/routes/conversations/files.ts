import { createRoute, z } from '@hono/zod-openapi';
import { fileDownload } from '../../domain/conversations/files';
import { errorResponses, idParam, requires } from '../../http/openapi';
import { createRouter } from '../../http/router';

const idParams = z.object({ id: idParam('id', 'fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0', 'The file id.') });

export const filesRoutes = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/{id}',
		operationId: 'downloadFile',
		summary: 'Download a file a visitor sent',
		description:
			'The bytes of a file a visitor uploaded in a conversation (the URL of its message’s attachment, and the `ref` a bot keeps in its variable), as a download: `Content-Disposition: attachment`, its type as sniffed on upload.',
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
