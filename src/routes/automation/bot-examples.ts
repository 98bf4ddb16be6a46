import type { z } from '@hono/zod-openapi';
import type { botSchema } from '../../domain/automation/bots/bots';
import type { botDefinitionSchema } from '../../engines/bot-definition';
import { versionedParams } from './versioned';

/** What the bot routes show as examples, and the path parameters they share. */
export const exampleDefinition: z.input<typeof botDefinitionSchema> = {
	start: 'hello',
	steps: [
		{ id: 'hello', type: 'send_message', text: 'Hi {{contact.name | default: "there"}}!', next: 'email' },
		{
			id: 'email',
			type: 'data_entry',
			prompt: 'What is your e-mail?',
			input: 'email',
			variable: 'email',
			next: 'bye',
		},
		{ id: 'bye', type: 'transfer', message: 'Thanks! Someone from the team will be right with you.' },
	],
};

export const example: z.input<typeof botSchema> = {
	id: 'bot_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
	name: 'Lead qualification',
	enabled: true,
	trigger: { kind: 'new_conversation', keywords: [], stageId: null },
	channels: ['widget'],
	priority: 100,
	draft: exampleDefinition,
	publishedVersion: 1,
	lastVersion: 1,
	createdAt: '2026-11-23T12:00:00.000Z',
	updatedAt: '2026-11-23T12:00:00.000Z',
};

export const { idParams } = versionedParams('bot', example.id);
