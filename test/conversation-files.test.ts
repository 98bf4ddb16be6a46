import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages } from '../src/db/schema';
import { fileProblem, MAX_FILE_BYTES, SNIFF_BYTES, storedFileId } from '../src/model/files';
import {
	api,
	closeConversation,
	db,
	expectError,
	liveConversation,
	seedOperator,
	seedWorkspace,
	settleRoom,
	type Visitor,
} from './factories';
import { visitorSocket } from './sockets';

/** A valid 1x1 PNG. */
const PNG = Uint8Array.from(
	atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
	(c) => c.charCodeAt(0),
);
const PDF = new TextEncoder().encode('%PDF-1.7\n%âãÏÓ\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF');

interface Attachment {
	url: string;
	name: string;
	contentType: string;
	size: number;
}
interface SentMessage {
	id: string;
	seq: number;
	text: string;
	private: boolean;
	authorKind: string;
	attachments: Attachment[];
}

/** The team's upload: the file's bytes as the body, with its name (and `private`) in the query. */
function sendFile(
	token: string,
	conversationId: string,
	body: Uint8Array,
	query: string,
	headers: Record<string, string> = {},
) {
	return exports.default.fetch(
		new Request(`https://parley.test/v3/conversations/${conversationId}/files?${query}`, {
			method: 'POST',
			body,
			headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', ...headers },
		}),
	);
}

/** The visitor reads a file of their conversation through the widget's endpoint. */
function visitorDownload(visitor: Visitor, conversationId: string, fileId: string) {
	return exports.default.fetch(
		new Request(`https://parley.test/widget/${visitor.workspaceId}/conversations/${conversationId}/files/${fileId}`, {
			headers: { Origin: 'https://shop.example', 'Parley-Session': visitor.session, 'CF-Connecting-IP': visitor.ip },
		}),
	);
}

async function objects(workspaceId: string) {
	return (await env.FILES.list({ prefix: `files/${workspaceId}/` })).objects.map((o) => o.key);
}

async function d1Messages(conversationId: string) {
	return db.select().from(messages).where(eq(messages.conversationId, conversationId));
}

describe('POST /v3/conversations/{id}/files', () => {
	it('stores the file and posts it as the operator’s message, live to the visitor and in D1', async () => {
		const { workspaceId, token, visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		const res = await sendFile(token, conversationId, PNG, 'name=shelf.png', { 'Idempotency-Key': 'shelf-1' });
		expect(res.status).toBe(201);
		// The answer's bookmark covers the room's D1 write too (docs/EDGE.md section 5).
		expect(res.headers.get('x-d1-bookmark')).toMatch(/^[0-9a-f]{8}-/);
		const message = (await res.json()) as SentMessage;
		expect(message).toMatchObject({ authorKind: 'operator', text: 'shelf.png', private: false });
		const [file] = message.attachments;
		expect(file).toMatchObject({ name: 'shelf.png', contentType: 'image/png', size: PNG.byteLength });
		expect(file?.url).toMatch(/^https:\/\/parley\.test\/v3\/files\/fil_[0-9a-f]{32}$/);
		// The room's broadcast carries the same attachment as the answer: the widget shows it live.
		const frame = await socket.next('message', (f) => f.message.seq === message.seq);
		expect(frame.message.attachments).toEqual(message.attachments);
		socket.close();
		// And D1's copy, which the API and the widget's history read.
		await settleRoom(conversationId);
		const stored = (await d1Messages(conversationId)).find((m) => m.id === message.id);
		expect(stored?.attachments).toEqual(message.attachments);
		// The visitor reads the bytes through the widget; the team through /v3/files.
		const fileId = storedFileId(file?.url ?? '') ?? '';
		const mine = await visitorDownload(visitor, conversationId, fileId);
		expect(mine.status).toBe(200);
		expect(mine.headers.get('Content-Type')).toBe('image/png');
		expect(mine.headers.get('Access-Control-Allow-Origin')).toBe('*');
		expect(new Uint8Array(await mine.arrayBuffer())).toEqual(PNG);
		expect((await api(token, 'GET', `/v3/files/${fileId}`)).status).toBe(200);
		// A retry with the same key stores nothing new and answers the same message.
		const again = await sendFile(token, conversationId, PNG, 'name=shelf.png', { 'Idempotency-Key': 'shelf-1' });
		expect(again.status).toBe(201);
		expect(again.headers.get('Idempotent-Replayed')).toBe('true');
		expect(((await again.json()) as SentMessage).id).toBe(message.id);
		expect(await objects(workspaceId)).toHaveLength(1);
	});

	it('sends a PDF into a private note that the visitor neither receives nor can download', async () => {
		const { token, visitor, conversationId } = await liveConversation();
		const socket = await visitorSocket(visitor, conversationId);
		const res = await sendFile(token, conversationId, PDF, 'name=contract&private=true');
		expect(res.status).toBe(201);
		const note = (await res.json()) as SentMessage;
		expect(note).toMatchObject({ private: true, text: 'contract.pdf' });
		expect(note.attachments[0]).toMatchObject({ name: 'contract.pdf', contentType: 'application/pdf' });
		// A message after it reaches the visitor; the note before it never did.
		const after = await sendFile(token, conversationId, PNG, 'name=after.png');
		const afterSeq = ((await after.json()) as SentMessage).seq;
		await socket.next('message', (f) => f.message.seq === afterSeq);
		expect(socket.messageSeqs()).not.toContain(note.seq);
		socket.close();
		const fileId = storedFileId(note.attachments[0]?.url ?? '') ?? '';
		await expectError(await visitorDownload(visitor, conversationId, fileId), 404);
		const team = await api(token, 'GET', `/v3/files/${fileId}`);
		expect(team.status).toBe(200);
		expect(new Uint8Array(await team.arrayBuffer())).toEqual(PDF);
	});

	it('refuses a file of no accepted kind or too large with the spec’s body, storing and posting nothing', async () => {
		const { workspaceId, token, conversationId } = await liveConversation();
		const before = (await d1Messages(conversationId)).length;
		const script = new TextEncoder().encode('<script>alert(1)</script>');
		const wrong = await expectError(await sendFile(token, conversationId, script, 'name=cat.png'), 415);
		expect(wrong.message).toContain('PNG, JPEG, GIF or WebP images, and PDF documents');
		const huge = new Uint8Array(MAX_FILE_BYTES + 1);
		huge.set(PNG);
		expect((await expectError(await sendFile(token, conversationId, huge, 'name=big.png'), 413)).message).toContain(
			'10 MiB',
		);
		await expectError(await sendFile(token, conversationId, new Uint8Array(), 'name=empty.png'), 415);
		await expectError(await sendFile(token, conversationId, PNG, 'name=x.png&private=maybe'), 422);
		expect(await objects(workspaceId)).toEqual([]);
		await settleRoom(conversationId);
		expect(await d1Messages(conversationId)).toHaveLength(before);
	});

	it('is scoped to the workspace and needs messages:send', async () => {
		const { workspaceId, conversationId } = await liveConversation();
		const other = await seedWorkspace();
		await expectError(await sendFile(other.token, conversationId, PNG, 'name=x.png'), 404);
		expect(await objects(other.workspaceId)).toEqual([]);
		expect(await objects(workspaceId)).toEqual([]);
		const reader = await seedOperator(workspaceId, ['conversations:read']);
		await expectError(await sendFile(reader.token, conversationId, PNG, 'name=x.png'), 403);
		expect(await objects(workspaceId)).toEqual([]);
	});
});

describe('GET /widget/{workspaceId}/conversations/{id}/files/{fileId}', () => {
	it('serves only the files of the visitor’s own conversation', async () => {
		const first = await liveConversation();
		const sent = (await (await sendFile(first.token, first.conversationId, PNG, 'name=a.png')).json()) as SentMessage;
		const fileId = storedFileId(sent.attachments[0]?.url ?? '') ?? '';
		// Another visitor of the same workspace, with a conversation of their own, cannot read it.
		const second = await liveConversation();
		await expectError(await visitorDownload(second.visitor, second.conversationId, fileId), 404);
		await expectError(await visitorDownload(first.visitor, second.conversationId, fileId), 404);
		expect((await visitorDownload(first.visitor, first.conversationId, fileId)).status).toBe(200);
		await expectError(await visitorDownload(first.visitor, first.conversationId, 'fil_nope'), 404);
	});
});

describe('a visitor’s file refused after it was stored', () => {
	it('is taken away again when the conversation is closed and its visitors start a new one', async () => {
		const { workspaceId, token, visitor, conversationId } = await liveConversation();
		expect((await api(token, 'PUT', '/v3/widget/settings', { closedConversationReply: 'new' })).status).toBe(200);
		await closeConversation(token, conversationId);
		const url = `https://parley.test/widget/${workspaceId}/conversations/${conversationId}/files?name=a.png&clientMessageId=late-1`;
		const res = await exports.default.fetch(
			new Request(url, {
				method: 'POST',
				body: PNG,
				headers: {
					'Content-Type': 'application/octet-stream',
					'Parley-Session': visitor.session,
					'CF-Connecting-IP': visitor.ip,
				},
			}),
		);
		await expectError(res, 409);
		expect(await objects(workspaceId)).toEqual([]);
	});
});

describe('the composers’ file rules (src/model/files.ts)', () => {
	it.each([
		['a PNG', PNG.byteLength, PNG, null],
		['a PDF', PDF.byteLength, PDF, null],
		['a PNG over the limit', MAX_FILE_BYTES + 1, PNG, 'size'],
		['a script named .png', 30, new TextEncoder().encode('<script>'), 'type'],
		['an empty file', 0, new Uint8Array(), 'type'],
	])('%s: %s', (_, size, bytes, problem) => {
		expect(fileProblem(size, bytes.slice(0, SNIFF_BYTES))).toBe(problem);
	});

	it('knows Parley’s own file URLs', () => {
		expect(storedFileId('https://parley.test/v3/files/fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0')).toBe(
			'fil_3f7a9c2e4b1d8f60a5c7e9b2d4f6a8c0',
		);
		expect(storedFileId('https://cdn.example.com/tent.png')).toBeNull();
	});
});
