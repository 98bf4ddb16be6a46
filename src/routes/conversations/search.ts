import { createRoute } from '@hono/zod-openapi';
import { conversationFiltersSchema } from '../../domain/conversations/list';
import {
	searchConversations,
	searchCursor,
	searchHitSchema,
	searchQueryParam,
} from '../../domain/conversations/search';
import { errorResponses, jsonResponse, requires } from '../../http/openapi';
import { conversationExample } from '../../http/openapi-examples';
import { createRouter } from '../../http/router';
import { encodeCursor, pageQuery, pageSchema, readCursor } from '../../lib/cursor';

const searchQuery = conversationFiltersSchema.extend({ q: searchQueryParam }).extend(pageQuery(20));
const searchPage = pageSchema(
	'SearchPage',
	searchHitSchema,
	"This page: the matching contacts' conversations first, then the matching messages, newest first.",
);

/** `GET /v3/conversations/search`: mounted before the conversation routes, whose `/{id}` would take `search`. */
export const conversationSearch = createRouter().openapi(
	createRoute({
		method: 'get',
		path: '/search',
		operationId: 'searchConversations',
		summary: 'Search conversations by what was said and by who said it',
		description:
			"Finds conversations by their messages' text (private notes included: they are the team's) and by their contact's name, e-mail, phone or short id (the last five characters of its id, which the console shows as \"Visitor 2PEKZ\"). Each hit is a conversation with what matched: the contact field, or the message (its id and `seq`, to open the conversation there), with a snippet whose matching words are marked. The inbox's filters apply. Every word of `q` must match; quotes, stars and search operators in it are plain text. A `q` empty, without a letter or digit, or over 200 characters is a 422.",
		...requires('conversations:read'),
		request: { query: searchQuery },
		responses: {
			200: jsonResponse('A page of hits.', searchPage, {
				data: [
					{
						conversation: conversationExample,
						match: {
							in: 'message',
							messageId: 'msg_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
							seq: 3,
							authorKind: 'contact',
							private: false,
							createdAt: '2026-11-21T12:00:00.000Z',
							snippet: [
								{ text: 'I asked for a ', match: false },
								{ text: 'refund', match: true },
								{ text: ' last week', match: false },
							],
						},
					},
				],
				nextCursor: null,
			}),
			...errorResponses(403, 422),
		},
	}),
	async (c) => {
		const { q, limit, cursor, ...filters } = c.req.valid('query');
		const after = readCursor(cursor, searchCursor);
		const page = await searchConversations(c.var.db, c.var.caller.workspaceId, q, filters, after, limit);
		return c.json({ data: page.data, nextCursor: page.nextCursor && encodeCursor(page.nextCursor) }, 200);
	},
);
