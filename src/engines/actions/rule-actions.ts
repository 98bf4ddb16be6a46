/**
 * The actions of a classic automation rule: the catalogue's assign, apply or remove a tag and update the
 * contact, and what a rule adds: send a message, start a bot, create a task, save the conversation's messages
 * to the CRM, notify the team. A rule acts on the conversation and the contact its event is about; each
 * action's templates are rendered before it runs, with what its trigger fills (src/model/rule-variables.ts).
 */
import { z } from '@hono/zod-openapi';
import { assignAction } from './assign';
import { template } from './fields';
import { tagAction } from './tag';
import { updateContactAction } from './update-contact';

const sendMessage = z.strictObject({
	type: z.literal('send_message').openapi({ description: 'Send a message in the conversation (as the team’s bot).' }),
	text: template(4000).openapi({ description: 'The message (a template).' }),
	buttons: z
		.array(template(100))
		.max(10)
		.optional()
		.openapi({ description: 'Quick replies the visitor can tap (10 at most).' }),
});

const startBot = z.strictObject({
	type: z.literal('start_bot').openapi({ description: 'Start a bot in the conversation (its published version).' }),
	botId: z.string().min(1).max(64).openapi({ description: 'The bot.' }),
});

const createTaskAction = z.strictObject({
	type: z.literal('create_task').openapi({ description: 'Create a task about the conversation and its contact.' }),
	title: template(200).openapi({ description: 'What to do (a template).' }),
	assigneeId: z
		.string()
		.min(1)
		.max(64)
		.optional()
		.openapi({ description: 'Who does it; the conversation’s assignee when left out.' }),
	dueInMinutes: z
		.int()
		.min(1)
		.max(525_600)
		.optional()
		.openapi({ description: 'Due this many minutes after the rule fired; no date when left out.' }),
});

const saveToCrm = z.strictObject({
	type: z.literal('save_to_crm').openapi({
		description: 'Attach the conversation’s transcript as a note: to the contact’s open deal, else the contact.',
	}),
	newDeal: z
		.strictObject({
			funnelId: z.string().min(1).max(64).openapi({ description: 'The funnel of the deal to create.' }),
			stageId: z.string().min(1).max(64).optional().openapi({ description: 'Its stage; the first when left out.' }),
			name: template(400).openapi({ description: 'Its name (a template).' }),
		})
		.optional()
		.openapi({ description: 'When the contact has no open deal: create this one and attach the note to it.' }),
});

/** Notify the team: a rule's action, and (with its links) a bot's step (src/engines/bot-definition.ts). */
export const notifyAction = z.strictObject({
	type: z.literal('notify').openapi({
		description:
			'Notify operators: an alert (console, desktop, push) and a mail, as each chose, and a `rule.notification` webhook event.',
	}),
	text: template(1000).openapi({ description: 'What to tell them (a template).' }),
	operatorIds: z
		.array(z.string().min(1).max(64))
		.max(50)
		.default([])
		.openapi({ description: 'Whom to notify; the whole team when empty.' }),
});

export const ruleActionSchema = z
	.discriminatedUnion('type', [
		sendMessage,
		startBot,
		assignAction,
		tagAction,
		updateContactAction,
		createTaskAction,
		saveToCrm,
		notifyAction,
	])
	.openapi('RuleAction', { description: 'One action of a rule, by `type`.' });

export type RuleAction = z.infer<typeof ruleActionSchema>;

export type StartBotAction = z.infer<typeof startBot>;
export type CreateTaskAction = z.infer<typeof createTaskAction>;
export type SaveToCrmAction = z.infer<typeof saveToCrm>;
export type NotifyAction = z.infer<typeof notifyAction>;
