import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { safeFileName, sniff } from '../src/domain/conversations/files';
import { api, expectError, seedWorkspace, startVisitor, startVisitorConversation } from './factories';

/** A valid 1x1 PNG. */
const PNG = Uint8Array.from(
	atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
	(c) => c.charCodeAt(0),
);

/** The widget's upload: the file's bytes as the body, the visitor's session and address. */
function fetchUpload(
	visitor: { workspaceId: string; session: string; ip: string },
	conversationId: string,
	body: Uint8Array,
	query: string,
) {
	const url = `https://parley.test/widget/${visitor.workspaceId}/conversations/${conversationId}/files?${query}`;
	return exports.default.fetch(
		new Request(url, {
			method: 'POST',
			body,
			headers: {
				'Content-Type': 'application/octet-stream',
				Origin: 'https://shop.example',
				'Parley-Session': visitor.session,
				'CF-Connecting-IP': visitor.ip,
			},
		}),
	);
}

async function objects(workspaceId: string) {
	return (await env.FILES.list({ prefix: `files/${workspaceId}/` })).objects.map((o) => o.key);
}

describe('visitor file uploads', () => {
	it('stores a file told by its bytes, sends it as a message, and lets operators download it', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Here is my receipt');
		const res = await fetchUpload(visitor, conversationId, PNG, 'name=../../receipt&clientMessageId=up-1');
		expect(res.status).toBe(201);
		const message = (await res.json()) as {
			id: string;
			text: string;
			attachments: Array<{ url: string; name: string; contentType: string; size: number }>;
		};
		const [file] = message.attachments;
		expect(message.text).toBe('receipt.png');
		expect(file).toMatchObject({ name: 'receipt.png', contentType: 'image/png', size: PNG.byteLength });
		expect(file?.url).toMatch(/^https:\/\/parley\.test\/v3\/files\/fil_[0-9a-f]{32}$/);
		const path = new URL(file?.url ?? '').pathname;
		const download = await api(token, 'GET', path);
		expect(download.status).toBe(200);
		expect(download.headers.get('Content-Type')).toBe('image/png');
		expect(download.headers.get('Content-Disposition')).toContain('attachment; filename="receipt.png"');
		expect(download.headers.get('X-Content-Type-Options')).toBe('nosniff');
		expect(new Uint8Array(await download.arrayBuffer())).toEqual(PNG);
		// A retry of the same send stores nothing new and answers the same message; other bytes under the same
		// id are refused before they could replace the file.
		const again = await fetchUpload(visitor, conversationId, PNG, 'name=receipt.png&clientMessageId=up-1');
		expect(again.status).toBe(201);
		expect(((await again.json()) as { id: string }).id).toBe(message.id);
		const swapped = new TextEncoder().encode('%PDF-1.7 another file');
		await expectError(
			await fetchUpload(visitor, conversationId, swapped, 'name=receipt.png&clientMessageId=up-1'),
			422,
		);
		expect(await objects(workspaceId)).toHaveLength(1);
		expect(new Uint8Array(await (await api(token, 'GET', path)).arrayBuffer())).toEqual(PNG);
		const other = await seedWorkspace();
		await expectError(await api(other.token, 'GET', path), 404);
	});

	it('refuses what is no image or PDF whatever its name says, and what is too large, storing nothing', async () => {
		const { workspaceId } = await seedWorkspace();
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hi');
		const script = new TextEncoder().encode('<script>alert(1)</script>');
		const disguised = await fetchUpload(visitor, conversationId, script, 'name=cat.png&clientMessageId=up-2');
		expect((await expectError(disguised, 415)).message).toContain('PNG, JPEG, GIF or WebP images, and PDF documents');
		const huge = new Uint8Array(10 * 1024 * 1024 + 1);
		huge.set(PNG);
		await expectError(await fetchUpload(visitor, conversationId, huge, 'name=big.png&clientMessageId=up-3'), 413);
		expect(await objects(workspaceId)).toEqual([]);
		const stranger = await startVisitor(workspaceId);
		await expectError(await fetchUpload(stranger, conversationId, PNG, 'name=x.png&clientMessageId=up-4'), 404);
	});

	it('tells files apart by their first bytes and keeps names harmless', () => {
		expect(sniff(PNG)?.type).toBe('image/png');
		expect(sniff(new TextEncoder().encode('%PDF-1.7 ...'))?.type).toBe('application/pdf');
		expect(sniff(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))?.type).toBe('image/jpeg');
		expect(sniff(new TextEncoder().encode('GIF89a'))?.type).toBe('image/gif');
		expect(sniff(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))?.type).toBe('image/webp');
		expect(sniff(new TextEncoder().encode('MZ executable'))).toBeNull();
		expect(safeFileName('C:\\Users\\ana\\invoice.exe', 'pdf')).toBe('invoice.exe.pdf');
		expect(safeFileName('"photo"\n.JPEG', 'jpg')).toBe('photo.JPEG');
		expect(safeFileName(undefined, 'png')).toBe('upload.png');
		expect(safeFileName('invoice\u202Efdp.exe', 'pdf')).toBe('invoicefdp.exe.pdf');
	});
});

describe('a bot asking for a file', () => {
	it('takes the upload as the answer and keeps its reference for operators', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const created = await api(token, 'POST', '/v3/bots', {
			name: 'Receipts',
			trigger: { kind: 'new_conversation' },
			definition: {
				start: 'ask',
				steps: [
					{
						id: 'ask',
						type: 'data_entry',
						prompt: 'Send the receipt, please.',
						input: 'file',
						variable: 'receipt',
						next: 'ok',
					},
					{ id: 'ok', type: 'end', message: 'Got {{ receipt.name }}.' },
				],
			},
		});
		const { id } = (await created.json()) as { id: string };
		await api(token, 'POST', `/v3/bots/${id}/publish`);
		const visitor = await startVisitor(workspaceId);
		const conversationId = await startVisitorConversation(visitor, 'Hi');
		const messages = async () =>
			(
				(await (await api(token, 'GET', `/v3/conversations/${conversationId}/messages`)).json()) as {
					data: Array<{ text: string; interactive: unknown }>;
				}
			).data;
		await expect
			.poll(async () => (await messages()).at(-1), { interval: 200 })
			.toMatchObject({
				text: 'Send the receipt, please.',
				interactive: { type: 'input', input: 'file' },
			});
		expect((await fetchUpload(visitor, conversationId, PNG, 'name=r.png&clientMessageId=up-5')).status).toBe(201);
		await expect.poll(async () => (await messages()).at(-1)?.text, { interval: 200 }).toBe('Got r.png.');
		const runs = (await (await api(token, 'GET', `/v3/conversations/${conversationId}/bot-runs`)).json()) as {
			data: Array<{ variables: { receipt: { ref: string; name: string } } }>;
		};
		const receipt = runs.data[0]?.variables.receipt;
		expect(receipt?.name).toBe('r.png');
		expect((await api(token, 'GET', new URL(receipt?.ref ?? '').pathname)).status).toBe(200);
	});
});
