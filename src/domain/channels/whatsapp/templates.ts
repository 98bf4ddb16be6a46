/**
 * Message templates: the number's approved templates as Meta lists them (`GET /{waba_id}/message_templates`,
 * paged through), and a template sent into a conversation by the team, its variables written as Liquid and
 * rendered with the conversation's contact as campaigns render theirs. A template may go outside the 24-hour
 * window: it is how a business writes first, or again after a day.
 *
 * Meta allows the list 200 calls an hour per business account: it is kept a minute per isolate, so a team
 * picking and sending templates does not fetch it for each.
 */
import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { contacts, conversations } from '../../../db/schema';
import { renderTemplate, TemplateError } from '../../../engines/templates';
import { fillTemplateText, type ParameterFormat, templatePlaceholders } from '../../../engines/whatsapp/outgoing';
import { Invalid, NotFound, ServiceUnavailable } from '../../../lib/errors';
import { OutboundError } from '../../../lib/guarded-fetch';
import { keyedRecord } from '../../../lib/schema-rules';
import { MAX_OPERATOR_TEXT, type MessageView } from '../../../model/messages';
import { WHATSAPP_CHANNEL } from '../../../model/whatsapp';
import { postMessage } from '../../conversations/live';
import { workspaceTimeZone } from '../../widget/settings';
import type { WhatsappDeliveryRow } from './deliveries';
import { GraphError, graphCall, type OpenNumber, openNumber } from './graph';
import { enqueueWhatsapp } from './outbox';
import { conversationLine, lineFacts, TEMPLATE_CLIENT_PREFIX } from './replies';

export const whatsappTemplateSchema = z
	.object({
		name: z.string().openapi({ description: 'Its name, as Meta knows it.', example: 'order_update' }),
		language: z.string().openapi({ description: 'Its language code.', example: 'en_US' }),
		category: z.string().nullable().openapi({ description: '`UTILITY`, `MARKETING` or `AUTHENTICATION`.' }),
		parameterFormat: z.enum(['POSITIONAL', 'NAMED']).openapi({
			description: '`POSITIONAL` (`{{1}}`, `{{2}}`: `variables` is a list) or `NAMED` (`{{first_name}}`: an object).',
		}),
		body: z.string().openapi({ description: 'The body text, with its placeholders.', example: 'Hi {{1}}!' }),
		variables: z.array(z.string()).openapi({ description: 'The body’s placeholders, in order.', example: ['1'] }),
	})
	.openapi('WhatsappTemplate');
export type WhatsappTemplate = z.infer<typeof whatsappTemplateSchema>;

/** Pages of the list followed at most (of 100 templates each). */
const MAX_PAGES = 20;
const CACHE_MS = 60_000;
const cache = new Map<string, { at: number; templates: WhatsappTemplate[] }>();

interface GraphTemplate {
	name?: unknown;
	language?: unknown;
	category?: unknown;
	parameter_format?: unknown;
	components?: Array<{ type?: unknown; text?: unknown }>;
}

function templateOf(raw: GraphTemplate): WhatsappTemplate | null {
	if (typeof raw.name !== 'string' || typeof raw.language !== 'string') return null;
	const body = raw.components?.find((c) => c.type === 'BODY')?.text;
	const text = typeof body === 'string' ? body : '';
	return {
		name: raw.name,
		language: raw.language,
		category: typeof raw.category === 'string' ? raw.category : null,
		parameterFormat: raw.parameter_format === 'NAMED' ? 'NAMED' : 'POSITIONAL',
		body: text,
		variables: templatePlaceholders(text),
	};
}

/** One page of Meta's list; Meta's refusal (a token expired, its trouble) as ServiceUnavailable, with its reason. */
async function templatePage(env: Env, number: OpenNumber, after: string | undefined): Promise<unknown> {
	try {
		return await graphCall(env, number, {
			method: 'GET',
			path: `/${number.businessAccountId}/message_templates`,
			query: {
				fields: 'name,language,status,category,parameter_format,components',
				status: 'APPROVED',
				limit: '100',
				...(after ? { after } : {}),
			},
		});
	} catch (error) {
		if (error instanceof GraphError || error instanceof OutboundError) {
			throw new ServiceUnavailable(`Meta’s Graph API did not list the templates: ${error.message}`, { cause: error });
		}
		throw error;
	}
}

/** The number's approved templates, every page of Meta's list (kept a minute). */
async function approvedTemplates(env: Env, number: OpenNumber, now = Date.now()): Promise<WhatsappTemplate[]> {
	const kept = cache.get(number.id);
	if (kept && now - kept.at < CACHE_MS) return kept.templates;
	const templates: WhatsappTemplate[] = [];
	let after: string | undefined;
	for (let page = 0; page < MAX_PAGES; page++) {
		const answer = (await templatePage(env, number, after)) as {
			data?: GraphTemplate[];
			paging?: { next?: unknown; cursors?: { after?: unknown } };
		};
		for (const raw of answer.data ?? []) {
			const template = templateOf(raw);
			if (template) templates.push(template);
		}
		const next = answer.paging?.cursors?.after;
		// Meta names a next page only while there is one.
		if (!answer.paging?.next || typeof next !== 'string') break;
		after = next;
	}
	cache.set(number.id, { at: now, templates });
	return templates;
}

/** The approved templates of the workspace's number `numberId` (NotFound for another workspace's). */
export async function listTemplates(env: Env, db: Database, workspaceId: string, numberId: string) {
	return approvedTemplates(env, await openNumber(env, db, workspaceId, numberId));
}

/**
 * The conversation every template operation names in its path (`/conversations/{id}/…`) is not on a connected
 * WhatsApp number: the problem is the path parameter's, named `param.id` as the router names a bad one.
 */
function notOnWhatsapp(): Invalid {
	return new Invalid('not a WhatsApp conversation with a connected number', { field: ['id'], source: 'param' });
}

/** The number a WhatsApp conversation is on (see `lineFacts`); NotFound, or Invalid when it has none. */
async function lineOf(db: Database, workspaceId: string, conversationId: string) {
	const { found, line } = await lineFacts(db, workspaceId, conversationId);
	if (!found) throw new NotFound(`Conversation ${conversationId} not found.`);
	if (line === null) throw notOnWhatsapp();
	return line;
}

/**
 * The approved templates of the number a conversation is on, for whoever may write in it (an agent included,
 * who may not list the workspace's numbers): what the console's template picker offers.
 */
export async function conversationTemplates(env: Env, db: Database, workspaceId: string, conversationId: string) {
	const { numberId } = await lineOf(db, workspaceId, conversationId);
	return { numberId, data: await listTemplates(env, db, workspaceId, numberId) };
}

export const templateSendSchema = z
	.strictObject({
		name: z.string().min(1).max(512).openapi({ description: 'The approved template’s name.', example: 'order_update' }),
		language: z.string().min(2).max(15).openapi({ description: 'Its language code.', example: 'en_US' }),
		variables: z
			.union([z.array(z.string().max(1000)).max(100), keyedRecord(z.string().max(64), z.string().max(1000))])
			.default([])
			.openapi({
				description:
					'The body’s variables as Liquid, rendered with the conversation’s contact (`{{ contact.name }}`): a list for a POSITIONAL template, an object by placeholder name for a NAMED one.',
				example: ['{{ contact.name }}', 'A-1042'],
			}),
	})
	.openapi('WhatsappTemplateSend');
export type TemplateSend = z.infer<typeof templateSendSchema>;

/**
 * The number's approved template `name` in `language`, or null: a campaign checks its template against it
 * when it is saved and sent.
 */
export async function findTemplate(
	env: Env,
	number: OpenNumber,
	name: string,
	language: string,
	now = Date.now(),
): Promise<WhatsappTemplate | null> {
	return (await approvedTemplates(env, number, now)).find((t) => t.name === name && t.language === language) ?? null;
}

/**
 * The Liquid sources of the template's variables, in the order of its placeholders; Invalid when one is
 * missing or their count is not the template's.
 */
export function variableSources(template: WhatsappTemplate, given: TemplateSend['variables']): string[] {
	const sources = Array.isArray(given)
		? given
		: template.variables.map((name) => {
				const source = given[name];
				if (source === undefined) throw new Invalid(`variable ${name} is missing`, { field: ['variables', name] });
				return source;
			});
	if (sources.length !== template.variables.length) {
		throw new Invalid(`template ${template.name} takes ${template.variables.length} variables, not ${sources.length}`, {
			field: ['variables'],
		});
	}
	return sources;
}

/** The template's variables rendered for the contact, in the order of its placeholders. */
export async function renderVariables(
	template: WhatsappTemplate,
	given: TemplateSend['variables'],
	input: Parameters<typeof renderTemplate>[1],
): Promise<string[]> {
	const sources = variableSources(template, given);
	const rendered: string[] = [];
	for (const [i, source] of sources.entries()) {
		try {
			const value = (await renderTemplate(source, input, 1000)).trim();
			// Meta refuses an empty parameter: a variable that renders empty for this contact is the caller's to fix.
			if (value === '') throw new TemplateError('it renders empty for this contact');
			rendered.push(value);
		} catch (error) {
			if (!(error instanceof TemplateError)) throw error;
			throw new Invalid(`variable ${template.variables[i]}: ${error.message}`, { field: ['variables'] });
		}
	}
	return rendered;
}

/**
 * A template with its variables rendered: the text Parley stores as the message (the body filled in; the
 * template's name when it has no body) and what its delivery sends.
 */
export function filledTemplate(
	template: WhatsappTemplate,
	variables: string[],
): { text: string; toSend: NonNullable<WhatsappDeliveryRow['template']> } {
	const values = Object.fromEntries(template.variables.map((name, i) => [name, variables[i] ?? '']));
	const format: ParameterFormat = template.parameterFormat;
	return {
		text: fillTemplateText(template.body, values).slice(0, MAX_OPERATOR_TEXT) || template.name,
		toSend: {
			name: template.name,
			language: template.language,
			variables,
			...(format === 'NAMED' ? { parameterNames: template.variables } : {}),
		},
	};
}

/**
 * Sends an approved template into a WhatsApp conversation: stores the message (its text the rendered body)
 * as the operator's, and queues its delivery, allowed outside the 24-hour window. NotFound outside the
 * workspace; Invalid for a conversation that is not WhatsApp's, an unknown template, wrong variables.
 */
export async function sendTemplate(
	env: Env,
	db: Database,
	workspaceId: string,
	operatorId: string,
	conversationId: string,
	send: TemplateSend,
	now = Date.now(),
): Promise<{ message: MessageView; deliveryId: string }> {
	const target = await db
		.select({ channel: conversations.channel, contact: contacts })
		.from(conversations)
		.innerJoin(contacts, eq(contacts.id, conversations.contactId))
		.where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
		.get();
	if (!target) throw new NotFound(`Conversation ${conversationId} not found.`);
	const line = target.channel === WHATSAPP_CHANNEL ? await conversationLine(db, workspaceId, conversationId) : null;
	if (line === null) throw notOnWhatsapp();
	const number = await openNumber(env, db, workspaceId, line.numberId);
	const template = await findTemplate(env, number, send.name, send.language, now);
	if (!template) {
		throw new Invalid(`no approved template ${send.name} in ${send.language} on this number`, { field: ['name'] });
	}
	const input = {
		contact: target.contact,
		conversation: { id: conversationId, channel: WHATSAPP_CHANNEL },
		timeZone: await workspaceTimeZone(db, workspaceId),
		now,
	};
	const filled = filledTemplate(template, await renderVariables(template, send.variables, input));
	const text = filled.text;
	const { message } = await postMessage(env, {
		workspaceId,
		conversationId,
		authorKind: 'operator',
		authorId: operatorId,
		text,
		attachments: [],
		// Marks it as the template's own: the reply path leaves it alone, the room lets it past the window.
		clientMessageId: `${TEMPLATE_CLIENT_PREFIX}${crypto.randomUUID()}`,
	});
	const { id } = await enqueueWhatsapp(env, db, {
		workspaceId,
		numberId: line.numberId,
		kind: 'template',
		dedupeKey: `template:${conversationId}:${message.seq}`,
		recipient: line.waId,
		conversationId,
		messageSeq: message.seq,
		contactId: line.contactId,
		template: filled.toSend,
	});
	return { message, deliveryId: id };
}
