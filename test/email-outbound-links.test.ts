import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signMailLink, verifyMailLink } from '../src/auth/mail-link-token';
import { contacts } from '../src/db/schema';
import { buildConversationMail, MAX_ATTACHED_BYTES } from '../src/domain/channels/email/build';
import { claimDelivery } from '../src/domain/channels/email/deliveries';
import { putFile } from '../src/domain/conversations/files';
import { conversationWith, mailingWorkspace, seedDelivery } from './email-outbound-helpers';
import { api, db, expectError, seedConversation, seedWorkspace } from './factories';

function open(method: string, path: string, body?: string) {
	return exports.default.fetch(
		new Request(`https://parley.test${path}`, {
			method,
			body,
			headers: body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
		}),
	);
}

/** A contact of a new workspace, and the stop link of its continuation mails. */
async function stopLink() {
	const { workspaceId } = await seedWorkspace();
	const conversationId = await seedConversation(workspaceId);
	const [row] = await db.select({ contactId: contacts.id }).from(contacts).where(eq(contacts.workspaceId, workspaceId));
	if (!row) throw new Error('no contact');
	const token = await signMailLink(env, { purpose: 'stop', workspaceId, contactId: row.contactId });
	return { workspaceId, conversationId, contactId: row.contactId, token };
}

async function optOut(contactId: string) {
	return (await db.select().from(contacts).where(eq(contacts.id, contactId)).get())?.continuationOptOutAt ?? null;
}

describe('the stop link of continuation mails', () => {
	it('shows a confirmation on GET and stops nothing', async () => {
		const { token, contactId } = await stopLink();
		const res = await open('GET', `/mail/stop/${token}`);
		expect(res.status).toBe(200);
		expect(res.headers.get('Content-Type')).toContain('text/html');
		expect(res.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
		const html = await res.text();
		expect(html).toContain('Stop mails from Acme?');
		expect(html).toContain('<form method="post">');
		expect(await optOut(contactId)).toBeNull();
	});

	it('stops on POST, the one-click form of RFC 8058 included, once', async () => {
		const { token, contactId } = await stopLink();
		const res = await open('POST', `/mail/stop/${token}`, 'List-Unsubscribe=One-Click');
		expect(res.status).toBe(200);
		expect(await res.text()).toContain('You will no longer get these mails from Acme.');
		const first = await optOut(contactId);
		expect(first).not.toBeNull();
		expect((await open('POST', `/mail/stop/${token}`)).status).toBe(200);
		expect(await optOut(contactId)).toBe(first);
	});

	it('refuses a forged, altered or foreign token in the spec’s error body', async () => {
		const { token, workspaceId, contactId } = await stopLink();
		const [payload = '', signature = ''] = token.split('.');
		const forged = [
			// Its first character changed: every bit of it counts (the last one's low bits are padding).
			`${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`,
			`${btoa(JSON.stringify({ purpose: 'stop', workspaceId, contactId: 'ctc_other' })).replace(/=+$/, '')}.${signature}`,
			'not-a-token',
		];
		for (const bad of forged) {
			await expectError(await open('GET', `/mail/stop/${bad}`), 404);
			await expectError(await open('POST', `/mail/stop/${bad}`), 404);
		}
		// Signed for a contact of another workspace: it names no contact here, and stops nothing.
		const other = await seedWorkspace();
		const crossed = await signMailLink(env, { purpose: 'stop', workspaceId: other.workspaceId, contactId });
		await expectError(await open('POST', `/mail/stop/${crossed}`), 404);
		expect(await optOut(contactId)).toBeNull();
	});
});

describe('the link of a file too large to attach', () => {
	it('downloads the file while valid, and nothing once expired or for another purpose', async () => {
		const { workspaceId, conversationId, token: stop } = await stopLink();
		const bytes = new TextEncoder().encode('%PDF-1.4 test');
		const fileId = `fil_${'a'.repeat(32)}`;
		await putFile(
			env,
			workspaceId,
			conversationId,
			fileId,
			{ name: 'big.pdf', contentType: 'application/pdf', size: bytes.byteLength },
			bytes,
		);
		const link = await signMailLink(env, { purpose: 'file', workspaceId, fileId, expiresAt: Date.now() + 60_000 });
		const res = await open('GET', `/mail/files/${link}`);
		expect(res.status).toBe(200);
		expect(res.headers.get('Content-Disposition')).toContain('attachment; filename="big.pdf"');
		expect(new TextDecoder().decode(await res.arrayBuffer())).toBe('%PDF-1.4 test');
		const expired = await signMailLink(env, { purpose: 'file', workspaceId, fileId, expiresAt: Date.now() - 1 });
		await expectError(await open('GET', `/mail/files/${expired}`), 404);
		// A stop token is no file token, and the other way round.
		await expectError(await open('GET', `/mail/files/${stop}`), 404);
		await expectError(await open('GET', `/mail/stop/${link}`), 404);
		expect(await verifyMailLink(env, link, Date.now() + 120_000)).toBeNull();
	});
});

describe('the files of a mail', () => {
	it('attaches a small file from R2 and links a large one, the link opening it', async () => {
		const seeded = await mailingWorkspace();
		const { conversationId, contactId, email } = await conversationWith(seeded.token, 'api', []);
		const small = `fil_${'b'.repeat(32)}`;
		const large = `fil_${'c'.repeat(32)}`;
		const bytes = new TextEncoder().encode('%PDF-1.4 small');
		for (const id of [small, large]) {
			await putFile(
				env,
				seeded.workspaceId,
				conversationId,
				id,
				{ name: `${id}.pdf`, contentType: 'application/pdf', size: bytes.byteLength },
				bytes,
			);
		}
		const file = (id: string, size: number) => ({
			url: `https://parley.test/v3/files/${id}`,
			name: `${id}.pdf`,
			contentType: 'application/pdf',
			size,
		});
		const posted = await api(seeded.token, 'POST', '/v3/messages', {
			conversationId,
			text: 'Your documents',
			// The large one as its message says it is: past the attachment limit, it goes as a link.
			attachments: [file(small, bytes.byteLength), file(large, MAX_ATTACHED_BYTES + 1)],
		});
		expect(posted.status).toBe(201);
		const id = await seedDelivery(seeded.workspaceId, {
			conversationId,
			contactId,
			recipient: email,
			firstSeq: 1,
			lastSeq: 1,
		});
		const claimed = await claimDelivery(db, id);
		if (!claimed) throw new Error('not claimed');
		const built = await buildConversationMail(env, db, [claimed]);
		if ('skip' in built) throw new Error(built.skip);
		expect(built.mail.attachments.map((a) => [a.filename, a.type, new TextDecoder().decode(a.content)])).toEqual([
			[`${small}.pdf`, 'application/pdf', '%PDF-1.4 small'],
		]);
		expect(built.mail.text).toContain(`[attached: ${small}.pdf]`);
		const link = new RegExp(`\\[${large}\\.pdf: (https://parley\\.test/mail/files/[\\w.-]+)\\]`).exec(
			built.mail.text,
		)?.[1];
		expect(link).toBeDefined();
		const res = await exports.default.fetch(new Request(link ?? ''));
		expect(res.status).toBe(200);
		expect(new TextDecoder().decode(await res.arrayBuffer())).toBe('%PDF-1.4 small');
	});
});
