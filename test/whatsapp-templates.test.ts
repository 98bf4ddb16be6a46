import { describe, expect, it } from 'vitest';
import { api, expectError, seedOperator, seedWorkspace } from './factories';
import { fakeRequests } from './whatsapp-helpers';
import {
	deliveriesTo,
	fakeMessages,
	registerTemplates,
	whatsappConversation,
	whatsappWorkspace,
} from './whatsapp-outbound-helpers';

const HOUR = 3_600_000;
const ORDER = { name: 'order_update', language: 'en', body: 'Hi {{1}}, your order {{2}} has shipped.' };

describe('GET /v3/whatsapp/numbers/{id}/templates', () => {
	it('lists the number’s approved templates, every page of Meta’s list', async () => {
		const { token, number } = await whatsappWorkspace();
		const many = Array.from({ length: 104 }, (_, i) => ({ name: `t${i}`, language: 'en' }));
		await registerTemplates(number, [...many, ORDER, { name: 'draft', language: 'en', status: 'PENDING' }]);
		const res = await api(token, 'GET', `/v3/whatsapp/numbers/${number.id}/templates`);
		expect(res.status).toBe(200);
		const { data } = (await res.json()) as { data: Array<{ name: string; variables: string[] }> };
		expect(data).toHaveLength(105);
		expect(data.find((t) => t.name === 'order_update')).toEqual({
			...ORDER,
			category: 'UTILITY',
			parameterFormat: 'POSITIONAL',
			variables: ['1', '2'],
		});
		expect(data.some((t) => t.name === 'draft')).toBe(false);
		const calls = await fakeRequests(`/2${number.phoneNumberId.slice(1)}/message_templates`);
		expect(calls).toHaveLength(2);
		expect(calls[1]?.path).toBe(`/2${number.phoneNumberId.slice(1)}/message_templates`);
	});

	it('is the workspace’s own: another workspace’s number is not found', async () => {
		const { number } = await whatsappWorkspace();
		const other = await seedWorkspace();
		await expectError(await api(other.token, 'GET', `/v3/whatsapp/numbers/${number.id}/templates`), 404);
	});
});

describe('GET /v3/whatsapp/conversations/{id}/templates', () => {
	it('lists the templates of the conversation’s number to an agent, who may not list the numbers', async () => {
		const { token, number, workspaceId } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const { conversationId } = await whatsappConversation(token, number, 30 * HOUR);
		const agent = await seedOperator(workspaceId, ['messages:send']);
		await expectError(await api(agent.token, 'GET', '/v3/whatsapp/numbers'), 403);
		const res = await api(agent.token, 'GET', `/v3/whatsapp/conversations/${conversationId}/templates`);
		expect(res.status).toBe(200);
		const body = (await res.json()) as { numberId: string; data: Array<{ name: string }> };
		expect(body.numberId).toBe(number.id);
		expect(body.data.map((t) => t.name)).toEqual(['order_update']);
	});

	it('is a 422 on another channel, and another workspace’s conversation is not found', async () => {
		const { token, number } = await whatsappWorkspace();
		const { conversationId } = await whatsappConversation(token, number, 30 * HOUR);
		const started = await api(token, 'POST', '/v3/conversations', {
			contact: { email: `ada.${crypto.randomUUID().slice(0, 8)}@example.com` },
			message: { text: 'Hello' },
		});
		const { id: apiConversation } = (await started.json()) as { id: string };
		const refused = await expectError(
			await api(token, 'GET', `/v3/whatsapp/conversations/${apiConversation}/templates`),
			422,
		);
		// The conversation is the path's: its problem is named as every path parameter's is.
		expect(refused.message).toMatch(/^param\.id: /);
		const other = await seedWorkspace();
		await expectError(await api(other.token, 'GET', `/v3/whatsapp/conversations/${conversationId}/templates`), 404);
	});
});

describe('POST /v3/whatsapp/conversations/{id}/template', () => {
	it('sends the template outside the window, its variables rendered as Liquid, and stores its text', async () => {
		const { token, number } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const { conversationId, waId } = await whatsappConversation(token, number, 30 * HOUR);
		const res = await api(token, 'POST', `/v3/whatsapp/conversations/${conversationId}/template`, {
			name: 'order_update',
			language: 'en',
			variables: ['{{ contact.name | upcase }}', 'A-1042'],
		});
		expect(res.status).toBe(201);
		const sent = (await res.json()) as { text: string; seq: number; whatsapp: { status: string } };
		expect(sent).toMatchObject({ text: 'Hi ADA, your order A-1042 has shipped.', whatsapp: { status: 'queued' } });
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		const { messages } = await fakeMessages(number.phoneNumberId);
		expect(messages.map((m) => m.body)).toEqual([
			expect.objectContaining({
				type: 'template',
				to: `+${waId}`,
				template: {
					name: 'order_update',
					language: { code: 'en' },
					components: [
						{
							type: 'body',
							parameters: [
								{ type: 'text', text: 'ADA' },
								{ type: 'text', text: 'A-1042' },
							],
						},
					],
				},
			}),
		]);
		// One delivery, the template's: the reply path left its message alone.
		expect((await deliveriesTo(waId)).map((d) => d.kind)).toEqual(['template']);
		const list = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
		const { data } = (await list.json()) as { data: Array<{ text: string; whatsapp?: unknown }> };
		expect(data).toEqual([expect.objectContaining({ text: sent.text, whatsapp: { status: 'sent' } })]);
		// The window is still closed for a free-form message.
		await expectError(await api(token, 'POST', '/v3/messages', { conversationId, text: 'Thanks!' }), 409);
	});

	it('names the parameters of a NAMED template', async () => {
		const { token, number } = await whatsappWorkspace();
		await registerTemplates(number, [
			{ name: 'welcome', language: 'en_US', body: 'Welcome, {{first_name}}!', parameter_format: 'NAMED' },
		]);
		const { conversationId, waId } = await whatsappConversation(token, number, null);
		const res = await api(token, 'POST', `/v3/whatsapp/conversations/${conversationId}/template`, {
			name: 'welcome',
			language: 'en_US',
			variables: { first_name: '{{ contact.name }}' },
		});
		expect(res.status).toBe(201);
		expect(((await res.json()) as { text: string }).text).toBe('Welcome, Ada!');
		await expect.poll(async () => (await deliveriesTo(waId))[0]?.status).toBe('sent');
		const [sent] = (await fakeMessages(number.phoneNumberId)).messages;
		expect(sent?.body).toMatchObject({
			template: {
				components: [{ type: 'body', parameters: [{ type: 'text', parameter_name: 'first_name', text: 'Ada' }] }],
			},
		});
	});

	it('refuses an unknown template, the wrong variables, another channel, and another workspace’s conversation', async () => {
		const { token, number } = await whatsappWorkspace();
		await registerTemplates(number, [ORDER]);
		const { conversationId, waId } = await whatsappConversation(token, number, null);
		const send = (id: string, body: unknown, as = token) =>
			api(as, 'POST', `/v3/whatsapp/conversations/${id}/template`, body);
		await expectError(await send(conversationId, { name: 'nope', language: 'en' }), 422);
		await expectError(await send(conversationId, { ...ORDER, body: undefined, variables: ['one'] }), 422);
		await expectError(
			await send(conversationId, { name: 'order_update', language: 'en', variables: ['{{ x', 'y'] }),
			422,
		);
		const web = await api(token, 'POST', '/v3/conversations', {
			contact: { email: `bo.${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Bo' },
			channel: 'api',
		});
		expect(web.status).toBe(201);
		const { id: webId } = (await web.json()) as { id: string };
		const offChannel = await expectError(
			await send(webId, { name: 'order_update', language: 'en', variables: ['a', 'b'] }),
			422,
		);
		expect(offChannel.message).toMatch(/^param\.id: /);
		const other = await seedWorkspace();
		await expectError(
			await send(conversationId, { name: 'order_update', language: 'en', variables: ['a', 'b'] }, other.token),
			404,
		);
		expect(await deliveriesTo(waId)).toEqual([]);
		const list = await api(token, 'GET', `/v3/conversations/${conversationId}/messages`);
		expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
	});
});
