/**
 * What a typical integrator writes against the generated types (openapi-typescript, default settings) with
 * openapi-fetch. It is only type-checked, never run: a request the document makes impossible to write (a
 * defaulted field come out required, a pattern no value matches in types…) fails the check.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api';

type Conversation = components['schemas']['ConversationWithContact'];

export async function integratorFlow(baseUrl: string, token: string): Promise<Conversation> {
	const parley = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

	// Start a conversation with a contact named by e-mail; channel and the message author keep their defaults.
	const started = await parley.POST('/v3/conversations', {
		body: {
			contact: { email: 'ada@example.com', name: 'Ada Lovelace' },
			message: { text: 'Your refund is on its way.' },
		},
	});
	if (started.error) throw new Error(started.error.message);
	const conversation = started.data;

	// Send a message that is safe to retry; attachments keep their default.
	const sent = await parley.POST('/v3/messages', {
		params: { header: { 'idempotency-key': `refund-${conversation.id}` } },
		body: { conversationId: conversation.id, text: 'It should reach your card within 5 days.' },
	});
	if (sent.error) throw new Error(sent.error.message);
	const seq: number = sent.data.seq;
	const replayed = sent.response.headers.get('Idempotent-Replayed') === 'true';

	// List the open conversations of a campaign, tagged billing, that came from a search-ad click.
	const page = await parley.GET('/v3/conversations', {
		params: { query: { status: 'open', tag: 'billing', utmCampaign: 'autumn', hasGclid: 'true', limit: 50 } },
	});
	if (page.error) throw new Error(page.error.message);
	const next: string | null = page.data.nextCursor;
	const ids: string[] = page.data.data.map((c) => c.id);

	// Close it.
	const closed = await parley.PATCH('/v3/conversations/{id}', {
		params: { path: { id: conversation.id } },
		body: { status: 'closed' },
	});
	if (closed.error) throw new Error(closed.error.message);
	// With conversations:read the answer embeds the contact; a token without it gets a receipt.
	if (!('contact' in closed.data)) throw new Error('This integration needs conversations:read.');

	// Read and update the widget settings.
	const settings = await parley.GET('/v3/widget/settings');
	if (settings.error) throw new Error(settings.error.message);
	const updated = await parley.PUT('/v3/widget/settings', {
		body: { primaryColor: '#0a7d5a', businessHours: { enabled: !settings.data.businessHours.enabled } },
	});
	if (updated.error) throw new Error(updated.error.message);

	// Attribute a messaging-app conversation to its campaign by the reference in its first message.
	const handoff = await parley.GET('/v3/widget/handoffs/{ref}', { params: { path: { ref: '7kq2m9xd' } } });
	if (handoff.error) throw new Error(handoff.error.message);
	const source: string | undefined = handoff.data.origin.utmSource;

	// A dedicated API user with only what the integration needs (groups keep their default).
	const member = await parley.POST('/v3/team/members', {
		body: { email: 'crm@acme.example', name: 'CRM', permissions: ['conversations:read'] },
	});
	if (member.error) throw new Error(member.error.message);

	// A contact known by its name alone (one of name, e-mail and phone is enough).
	const contact = await parley.POST('/v3/contacts', { body: { name: 'Ada Lovelace' } });
	if (contact.error) throw new Error(contact.error.message);

	// Try an unsaved bot on paper: a definition is its start and its steps, each step's other fields by its type.
	const trial = await parley.POST('/v3/bots/simulate', {
		body: { definition: { start: 'hello', steps: [{ id: 'hello', type: 'send_message', text: 'Hi!' }] } },
	});
	if (trial.error) throw new Error(trial.error.message);

	console.log(seq, replayed, next, ids, source, updated.data.primaryColor, member.data.id, contact.data.id);
	console.log(trial.data.transcript.length);
	return closed.data;
}
