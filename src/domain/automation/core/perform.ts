/**
 * The one dispatch of the automation core: an action of the catalogue (src/engines/actions/catalogue.ts), its
 * templates rendered, performed through its module in ./actions, if the run's runner may take it. A scenario's
 * action names the record it acts on (`contact`, `targetId`): that record becomes the action's context here,
 * so every action module reads its conversation and contact from the context alone.
 */
import { type CatalogueAction, RUNNER_ACTIONS } from '../../../engines/actions/catalogue';
import { performAssign } from './actions/assign';
import { performCreateContact, performFindContact } from './actions/contact-records';
import { performCreateConversation, performFindConversation, performSendMessage } from './actions/conversations';
import { performCreateDeal } from './actions/create-deal';
import { performHttpRequest } from './actions/http-request';
import { performCreateTask, performNotify, performSaveToCrm, performStartBot } from './actions/rule-actions';
import { performTag } from './actions/tag';
import { performUpdateContact } from './actions/update-contact';
import { performUpdateDeal } from './actions/update-deal';
import { type ActionContext, type ActionResult, given, refused, refusedOn } from './context';

export type { ActionContext, ActionResult } from './context';

/**
 * Performs one action, its templates already rendered: refused when the run's runner may not take it, or when
 * the workspace's data refuses it (the step's error); a fault of ours (D1 down) is thrown for a retry.
 */
export function performAction(ctx: ActionContext, action: CatalogueAction): Promise<ActionResult> {
	if (!RUNNER_ACTIONS[ctx.run.kind].has(action.type)) {
		return Promise.resolve(refused(`${action.type} is no action of a ${ctx.run.kind}`));
	}
	return refusedOn(() => {
		const on = retargeted(ctx, action);
		return typeof on === 'string' ? Promise.resolve(refused(on)) : dispatch(on, action);
	});
}

/** The context with the record a scenario's action names, or why it names none (a template rendered empty). */
function retargeted(ctx: ActionContext, action: CatalogueAction): ActionContext | string {
	if (action.type === 'apply_tag' && action.targetId !== undefined) {
		const id = given(action.targetId);
		if (id === undefined) return 'targetId: rendered empty';
		return { ...ctx, ...(action.target === 'contact' ? { contactId: id } : { conversationId: id }) };
	}
	const named =
		action.type === 'update_contact' || action.type === 'create_deal' || action.type === 'update_deal'
			? action.contact
			: undefined;
	if (named === undefined) return ctx;
	const id = given(named);
	return id === undefined ? 'contact: rendered empty' : { ...ctx, contactId: id };
}

function dispatch(ctx: ActionContext, action: CatalogueAction): Promise<ActionResult> {
	switch (action.type) {
		case 'assign':
			return performAssign(ctx, action);
		case 'apply_tag':
			return performTag(ctx, action);
		case 'update_contact':
			return performUpdateContact(ctx, action);
		case 'create_deal':
			return performCreateDeal(ctx, action);
		case 'update_deal':
			return performUpdateDeal(ctx, action);
		case 'integration':
		case 'http_request':
			return performHttpRequest(ctx, action);
		case 'find_contact':
			return performFindContact(ctx, action);
		case 'create_contact':
			return performCreateContact(ctx, action);
		case 'find_conversation':
			return performFindConversation(ctx, action);
		case 'create_conversation':
			return performCreateConversation(ctx, action);
		case 'send_message':
			return performSendMessage(ctx, action);
		case 'start_bot':
			return performStartBot(ctx, action);
		case 'create_task':
			return performCreateTask(ctx, action);
		case 'save_to_crm':
			return performSaveToCrm(ctx, action);
		case 'notify':
			return performNotify(ctx, action);
	}
}
