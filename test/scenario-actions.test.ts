import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { performCreateContact, performFindContact } from '../src/domain/automation/core/actions/contact-records';
import {
	performCreateConversation,
	performFindConversation,
	performSendMessage,
} from '../src/domain/automation/core/actions/conversations';
import type { ActionContext } from '../src/domain/automation/core/context';
import { api, db, seedWorkspace } from './factories';

/** A scenario's record actions against real D1 and conversation rooms. */

async function scene() {
	const { workspaceId, token } = await seedWorkspace();
	const ctx = (overrides: Partial<ActionContext> = {}): ActionContext => ({
		env,
		db,
		workspaceId,
		run: { kind: 'scenario', id: 'run_1' },
		actor: { kind: 'scenario', id: 'scn_1' },
		conversationId: null,
		contactId: null,
		variables: {},
		locale: 'en',
		now: Date.now(),
		...overrides,
	});
	return { workspaceId, token, ctx };
}

describe('scenario record actions', () => {
	it('creates a contact, or updates the one with its e-mail, and finds it by e-mail, phone or id', async () => {
		const s = await scene();
		const created = await performCreateContact(s.ctx(), {
			name: 'Ana',
			email: 'Ana@Example.com',
			phone: '+55 11 99999-8888',
		});
		expect(created).toMatchObject({
			ok: true,
			data: { name: 'Ana', email: 'ana@example.com', phone: '+5511999998888' },
		});
		const id = (created as { data: { id: string } }).data.id;
		// A redelivered webhook's create finds the contact its first delivery made.
		const again = await performCreateContact(s.ctx(), { name: 'Ana Souza', email: 'ana@example.com' });
		expect(again).toMatchObject({ ok: true, data: { id, name: 'Ana Souza' } });
		for (const [by, value] of [
			['email', 'ANA@example.com'],
			['phone', '+55 (11) 99999-8888'],
			['id', id],
		] as const) {
			expect(await performFindContact(s.ctx(), { by, value }), by).toMatchObject({ ok: true, data: { id } });
		}
		expect(await performFindContact(s.ctx(), { by: 'email', value: 'nobody@example.com' })).toEqual({
			ok: true,
			notFound: true,
		});
		const other = await scene();
		expect(await performFindContact(other.ctx(), { by: 'id', value: id })).toEqual({ ok: true, notFound: true });
		expect(await performCreateContact(s.ctx(), { email: 'not an e-mail' })).toMatchObject({ ok: false });
	});

	it('opens a conversation once per key, finds it, and sends a message through its room once per key', async () => {
		const s = await scene();
		const contact = (await performCreateContact(s.ctx(), { email: 'bia@example.com' })) as { data: { id: string } };
		const key = 'run_1:open';
		const opened = await performCreateConversation(s.ctx({ idempotencyKey: key }), {
			contact: contact.data.id,
			channel: 'api',
			message: 'Order A-1 received!',
		});
		const conversationId = (opened as { data: { id: string } }).data.id;
		const retried = await performCreateConversation(s.ctx({ idempotencyKey: key }), {
			contact: contact.data.id,
			channel: 'api',
			message: 'Order A-1 received!',
		});
		expect((retried as { data: { id: string } }).data.id).toBe(conversationId);
		expect(
			await performFindConversation(s.ctx(), { contact: contact.data.id, channel: 'api', open: true }),
		).toMatchObject({
			ok: true,
			data: { id: conversationId },
		});
		expect(await performFindConversation(s.ctx(), { contact: contact.data.id, channel: 'widget', open: true })).toEqual(
			{
				ok: true,
				notFound: true,
			},
		);
		const send = () =>
			performSendMessage(s.ctx({ idempotencyKey: 'run_1:say' }), {
				conversation: conversationId,
				text: 'Is the address right?',
				buttons: ['Yes', 'No'],
			});
		expect(await send()).toMatchObject({ ok: true });
		expect(await send()).toMatchObject({ ok: true });
		const messages = (await (await api(s.token, 'GET', `/v3/conversations/${conversationId}/messages`)).json()) as {
			data: Array<{ authorKind: string; authorId: string; text: string; interactive: unknown }>;
		};
		expect(messages.data.map((m) => [m.authorKind, m.authorId, m.text])).toEqual([
			['bot', 'scn_1', 'Order A-1 received!'],
			['bot', 'scn_1', 'Is the address right?'],
		]);
		expect(messages.data[1]?.interactive).toEqual({ type: 'buttons', buttons: [{ label: 'Yes' }, { label: 'No' }] });
		const stranger = await scene();
		expect(await performSendMessage(stranger.ctx(), { conversation: conversationId, text: 'Hi' })).toMatchObject({
			ok: false,
		});
	});
});
