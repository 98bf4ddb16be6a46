import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messagingHandoffs, whatsappInbound } from '../src/db/schema';
import { api, db, seedWorkspace } from './factories';
import { PNG_1X1 } from './images';
import { fakeMedia, metaMessage, postWebhook, randomWaId, seedNumber, webhookPayload } from './whatsapp-helpers';
import { contactMessages, messagesOf } from './whatsapp-inbound-helpers';

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

describe('a WhatsApp message of every type', () => {
	it('becomes one contact message each, in order, none dropped', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const image = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png');
		const pdf = await fakeMedia(number.phoneNumberId, PDF, 'application/pdf');
		const sticker = await fakeMedia(number.phoneNumberId, new Uint8Array(16), 'image/webp');
		const batch = [
			metaMessage(from, 'text', { text: { body: 'hello' } }),
			metaMessage(from, 'image', { image: { id: image, mime_type: 'image/png', sha256: 'a', caption: 'my receipt' } }),
			metaMessage(from, 'document', {
				document: { id: pdf, mime_type: 'application/pdf', sha256: 'b', filename: 'invoice.pdf' },
			}),
			metaMessage(from, 'audio', {
				audio: { id: 'aud-1', mime_type: 'audio/ogg; codecs=opus', sha256: 'c', voice: true },
			}),
			metaMessage(from, 'video', { video: { id: 'vid-1', mime_type: 'video/mp4', sha256: 'd' } }),
			metaMessage(from, 'sticker', { sticker: { id: sticker, mime_type: 'image/webp', sha256: 'e', animated: false } }),
			metaMessage(from, 'location', {
				location: { latitude: -23.5505, longitude: -46.6333, name: 'Loja Centro', address: 'Praça da Sé' },
			}),
			metaMessage(from, 'contacts', {
				contacts: [{ name: { formatted_name: 'João Silva' }, phones: [{ phone: '+55 11 91234-5678', type: 'CELL' }] }],
			}),
			metaMessage(from, 'reaction', { reaction: { message_id: 'wamid.sent-by-us', emoji: '👍' } }),
			metaMessage(from, 'reaction', { reaction: { message_id: 'wamid.sent-by-us' } }),
			metaMessage(from, 'interactive', {
				interactive: { type: 'button_reply', button_reply: { id: 'Track my order', title: 'Track my order' } },
			}),
			metaMessage(from, 'interactive', {
				interactive: { type: 'list_reply', list_reply: { id: 'Express', title: 'Express', description: 'Next day' } },
			}),
			metaMessage(from, 'button', { button: { payload: 'Unsubscribe', text: 'Unsubscribe' } }),
			metaMessage(from, 'unsupported', {
				unsupported: { type: 'poll_creation' },
				errors: [{ code: 131051, title: 'Message type unknown' }],
			}),
			metaMessage(from, 'order', { order: { catalog_id: '1', product_items: [] } }),
		];
		const res = await postWebhook(number, webhookPayload(number, { messages: batch }));
		expect(res.status).toBe(200);
		const { messages } = await contactMessages(token, workspaceId, from);
		expect(messages).toHaveLength(batch.length);
		const texts = messages.map((m) => m.text);
		expect(texts[0]).toBe('hello');
		expect(texts[1]).toBe('my receipt');
		expect(messages[1]?.attachments).toMatchObject([{ contentType: 'image/png', size: PNG_1X1.byteLength }]);
		expect(texts[2]).toBe('[Document: invoice.pdf]');
		expect(messages[2]?.attachments).toMatchObject([{ contentType: 'application/pdf', name: 'invoice.pdf' }]);
		// Voice notes and videos are not among the files Parley keeps: said, not dropped (and not downloaded).
		expect(texts[3]).toMatch(/^\[Voice message\]\n\n\[the audio\/ogg; codecs=opus file stays in WhatsApp/);
		expect(texts[4]).toMatch(/^\[Video\]\n\n\[the video\/mp4 file stays in WhatsApp/);
		expect(texts[5]).toMatch(/^\[Sticker\]/);
		expect(texts[6]).toBe('📍 Location: Loja Centro, Praça da Sé\nhttps://maps.google.com/?q=-23.5505,-46.6333');
		expect(texts[7]).toBe('👤 João Silva: +55 11 91234-5678');
		expect(texts[8]).toBe('Reacted 👍 to a message');
		expect(texts[9]).toBe('Removed a reaction');
		expect(texts.slice(10, 13)).toEqual(['Track my order', 'Express', 'Unsubscribe']);
		expect(texts[13]).toMatch(/cannot show: unsupported \(poll_creation\)/);
		expect(texts[14]).toMatch(/cannot show: order/);
		const rows = await db.select().from(whatsappInbound).where(eq(whatsappInbound.workspaceId, workspaceId));
		expect(rows.map((r) => r.status)).toEqual(batch.map(() => 'posted'));
	});

	it('stores media in R2 under the file rules, readable through /v3/files', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const image = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png');
		await postWebhook(
			number,
			webhookPayload(number, {
				messages: [metaMessage(from, 'image', { image: { id: image, mime_type: 'image/png' } })],
			}),
		);
		const { messages } = await contactMessages(token, workspaceId, from);
		const url = messages[0]?.attachments[0]?.url ?? '';
		expect(url).toMatch(/^https:\/\/parley\.test\/v3\/files\/fil_[0-9a-f]{32}$/);
		const file = await api(token, 'GET', new URL(url).pathname);
		expect(file.status).toBe(200);
		expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG_1X1);
	});

	it('says so when a file is over the 10 MiB limit, and stores nothing of it', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const big = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png', { size: 11 * 1024 * 1024 });
		await postWebhook(
			number,
			webhookPayload(number, {
				messages: [metaMessage(from, 'image', { image: { id: big, mime_type: 'image/png', caption: 'big one' } })],
			}),
		);
		const { messages } = await contactMessages(token, workspaceId, from);
		expect(messages[0]?.text).toBe('big one\n\n[the file (11.0 MiB) is over 10 MiB: it stays in WhatsApp]');
		expect(messages[0]?.attachments).toEqual([]);
		const listed = await env.FILES.list({ prefix: workspaceId });
		expect(listed.objects).toEqual([]);
	});
});

describe('a tap on buttons the team sent', () => {
	it('answers with the button’s label, as a widget visitor’s press does, even when WhatsApp showed it cut', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'hi' } })] }),
		);
		const { conversation } = await contactMessages(token, workspaceId, from);
		const labels = ['Talk to someone from sales', 'Track an order in progress'];
		const sent = await api(token, 'POST', '/v3/messages', {
			conversationId: conversation.id,
			text: 'How can we help?',
			interactive: { type: 'buttons', buttons: labels.map((label) => ({ label })) },
		});
		expect(sent.status).toBe(201);
		// Meta's titles stop at 20 characters; the id Parley sent is not the label here.
		const tap = metaMessage(from, 'interactive', {
			interactive: { type: 'button_reply', button_reply: { id: 'btn-1', title: 'Track an order in pr' } },
		});
		await postWebhook(number, webhookPayload(number, { messages: [tap] }));
		const { messages } = await contactMessages(token, workspaceId, from);
		expect(messages.at(-1)?.text).toBe('Track an order in progress');
	});
});

describe('a bot on a WhatsApp conversation', () => {
	it('takes a tap on its buttons as the choice, and a typed answer too', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const definition = {
			start: 'plan',
			steps: [
				{
					id: 'plan',
					type: 'data_entry',
					prompt: 'Which plan are you on?',
					input: 'buttons',
					variable: 'plan',
					choices: [{ label: 'Free' }, { label: 'Pro' }, { label: 'Enterprise' }],
					next: 'city',
				},
				{ id: 'city', type: 'data_entry', prompt: 'Your city?', input: 'text', variable: 'city', next: 'bye' },
				{ id: 'bye', type: 'end', message: '{{ plan }} in {{ city }}: noted.' },
			],
		};
		const created = await api(token, 'POST', '/v3/bots', {
			name: 'Plans',
			trigger: { kind: 'new_conversation' },
			channels: ['whatsapp'],
			definition,
		});
		expect(created.status).toBe(201);
		const { id: botId } = (await created.json()) as { id: string };
		expect((await api(token, 'POST', `/v3/bots/${botId}/publish`)).status).toBe(200);
		const from = randomWaId();
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'hi' } })] }),
		);
		const { conversation } = await contactMessages(token, workspaceId, from);
		const texts = async () => (await messagesOf(token, conversation.id)).map((m) => m.text);
		await expect.poll(texts, { timeout: 20_000 }).toEqual(['hi', 'Which plan are you on?']);
		const tap = metaMessage(from, 'interactive', {
			interactive: { type: 'button_reply', button_reply: { id: 'Pro', title: 'Pro' } },
		});
		await postWebhook(number, webhookPayload(number, { messages: [tap] }));
		await expect.poll(texts, { timeout: 20_000 }).toEqual(['hi', 'Which plan are you on?', 'Pro', 'Your city?']);
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'Recife' } })] }),
		);
		await expect
			.poll(texts, { timeout: 20_000 })
			.toEqual(['hi', 'Which plan are you on?', 'Pro', 'Your city?', 'Recife', 'Pro in Recife: noted.']);
	});
});

describe('where a WhatsApp conversation came from', () => {
	it('keeps a Click-to-WhatsApp referral as the conversation’s and the contact’s origin', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		const referral = {
			source_url: 'https://fb.me/3cr4Wqqkv',
			source_id: '120226305854810726',
			source_type: 'ad',
			headline: 'Chat with us',
			body: 'Summer sale',
			media_type: 'image',
			image_url: 'https://scontent.example/ad.jpg',
			ctwa_clid:
				'Aff-n8ZTODiE79d22KtAwQKj9e_mIEOOj27vDVwFjN80dp4_0NiNhEgpGo0AHemvuSoifXaytfTzcchptiErTKCqTrJ5nW1h7IHYeYymGb5K5J5iutAxrVSKkNTmPnWJmsmBwEkXpZAW',
		};
		const first = metaMessage(from, 'text', { text: { body: 'I saw your ad' }, referral });
		await postWebhook(number, webhookPayload(number, { messages: [first] }));
		const { conversation, contact } = await contactMessages(token, workspaceId, from);
		expect(conversation.ctwaClid).toBe(referral.ctwa_clid);
		expect(conversation.adReferral).toEqual({
			sourceUrl: referral.source_url,
			sourceId: referral.source_id,
			sourceType: 'ad',
			headline: 'Chat with us',
			body: 'Summer sale',
			mediaType: 'image',
			ctwaClid: referral.ctwa_clid,
		});
		const origin = {
			ctwaClid: referral.ctwa_clid,
			adSourceUrl: referral.source_url,
			adSourceId: referral.source_id,
			adSourceType: 'ad',
			adHeadline: 'Chat with us',
			adMediaType: 'image',
		};
		expect(contact.firstOrigin).toEqual(origin);
		expect(contact.lastOrigin).toEqual(origin);
		// The API shows it as the conversation's origin, and the reports count it as a social (Meta) ad click.
		const view = (await (await api(token, 'GET', `/v3/conversations/${conversation.id}`)).json()) as {
			origin: Record<string, unknown>;
		};
		expect(view.origin).toMatchObject({ ctwaClid: referral.ctwa_clid, gclid: null, fbclid: null });
		expect(view.origin.adReferral).toMatchObject({ headline: 'Chat with us', sourceUrl: referral.source_url });
		const row = await env.DB.prepare('SELECT ad_click FROM conversations WHERE id = ?')
			.bind(conversation.id)
			.first<{ ad_click: string }>();
		expect(row?.ad_click).toBe('social');
	});

	it('carries the widget visit’s origin when the first message names a hand-off, and records the arrival', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const other = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const origin = {
			gclid: 'EAIaIQobChMI',
			utmSource: 'google',
			utmCampaign: 'summer',
			landingUrl: 'https://acme.example/?gclid=EAIaIQobChMI',
		};
		const now = Date.now();
		await db.insert(messagingHandoffs).values([
			{ workspaceId, ref: '7KQ2M9XD', channel: 'whatsapp', origin, sessionId: null, createdAt: now },
			// Another workspace's hand-off of the same reference attributes nothing here.
			{
				workspaceId: other.workspaceId,
				ref: '8KQ2M9XD',
				channel: 'whatsapp',
				origin: { gclid: 'theirs' },
				sessionId: null,
				createdAt: now,
			},
		]);
		const from = randomWaId();
		await postWebhook(
			number,
			webhookPayload(number, {
				messages: [metaMessage(from, 'text', { text: { body: 'Hi! I have a question (ref 7kq2m9xd)' } })],
			}),
		);
		const { conversation, contact } = await contactMessages(token, workspaceId, from);
		expect(conversation).toMatchObject({
			gclid: 'EAIaIQobChMI',
			utmSource: 'google',
			utmCampaign: 'summer',
			landingUrl: origin.landingUrl,
		});
		expect(contact.firstOrigin).toEqual(origin);
		expect(contact.lastOrigin).toEqual(origin);
		const handoff = await db
			.select()
			.from(messagingHandoffs)
			.where(and(eq(messagingHandoffs.workspaceId, workspaceId), eq(messagingHandoffs.ref, '7KQ2M9XD')))
			.get();
		expect(handoff?.conversationId).toBe(conversation.id);
		const stranger = randomWaId();
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(stranger, 'text', { text: { body: 'Hello (ref 8KQ2M9XD)' } })] }),
		);
		const theirs = await contactMessages(token, workspaceId, stranger);
		expect(theirs.conversation.gclid).toBeNull();
		const untouched = await db
			.select()
			.from(messagingHandoffs)
			.where(eq(messagingHandoffs.workspaceId, other.workspaceId))
			.get();
		expect(untouched?.conversationId).toBeNull();
	});
});

describe('a customer’s later messages', () => {
	it('go into the same conversation; a closed one reopens', async () => {
		const { token, workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const from = randomWaId();
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'one' } })] }),
		);
		const { conversation } = await contactMessages(token, workspaceId, from);
		expect((await api(token, 'PATCH', `/v3/conversations/${conversation.id}`, { status: 'closed' })).status).toBe(200);
		await postWebhook(
			number,
			webhookPayload(number, { messages: [metaMessage(from, 'text', { text: { body: 'two' } })] }),
		);
		const after = await contactMessages(token, workspaceId, from);
		expect(after.conversation.id).toBe(conversation.id);
		expect(after.conversation.status).toBe('open');
		expect(after.messages.map((m) => m.text)).toEqual(['one', 'two']);
	});
});
