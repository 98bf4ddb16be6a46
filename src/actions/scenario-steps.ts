/**
 * A scenario's action step performed by the kernel's actions. A scenario has no conversation of its own: the
 * record a step acts on comes from its rendered `contact`, `conversation` or `targetId` field, which becomes
 * the action's context. An update_deal that finds no deal answers `notFound`, as a Find that finds nothing.
 */
import type { ActionStepOfScenario } from '../engines/scenario-interpreter';
import { performCreateContact, performFindContact } from './contact-records';
import { type ActionContext, type ActionResult, given, refused } from './context';
import { performCreateConversation, performFindConversation, performSendMessage } from './conversations';
import { performHttpRequest } from './http-request';
import { performAction } from './index';

/** The id a step names in `field`, rendered; undefined when the template rendered empty. */
function target(step: ActionStepOfScenario, field: 'contact' | 'targetId'): string | undefined {
	return given((step as Record<string, string | undefined>)[field]);
}

export async function performScenarioStep(ctx: ActionContext, step: ActionStepOfScenario): Promise<ActionResult> {
	switch (step.type) {
		case 'find_contact':
			return performFindContact(ctx, step);
		case 'create_contact':
			return performCreateContact(ctx, step);
		case 'find_conversation':
			return performFindConversation(ctx, step);
		case 'create_conversation':
			return performCreateConversation(ctx, step);
		case 'send_message':
			return performSendMessage(ctx, step);
		case 'http_request':
			return performHttpRequest(ctx, step);
		case 'apply_tag': {
			const id = target(step, 'targetId');
			if (id === undefined) return refused('targetId: rendered empty');
			const on = step.target === 'contact' ? { contactId: id } : { conversationId: id };
			return performAction({ ...ctx, ...on }, step);
		}
		case 'update_contact': {
			const id = target(step, 'contact');
			if (id === undefined) return refused('contact: rendered empty');
			return performAction({ ...ctx, contactId: id }, step);
		}
		case 'create_deal':
		case 'update_deal': {
			const id = target(step, 'contact');
			if (step.contact !== undefined && id === undefined) return refused('contact: rendered empty');
			const result = await performAction({ ...ctx, contactId: id ?? null }, step);
			return 'noDeal' in result && result.noDeal ? { ok: true, notFound: true } : result;
		}
	}
}
