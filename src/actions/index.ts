/**
 * The actions of the automation kernel, one module each (its zod schema and the domain function it calls),
 * dispatched here for every runner: a bot's steps now, scenarios' and rules' actions later.
 */
import { assignAction, performAssign } from './assign';
import type { ActionContext, ActionResult } from './context';
import { createDealAction, performCreateDeal } from './create-deal';
import { integrationAction, performHttpRequest } from './http-request';
import { performTag, tagAction } from './tag';
import { performUpdateContact, updateContactAction } from './update-contact';
import { performUpdateDeal, updateDealAction } from './update-deal';

export type { ActionContext, ActionResult } from './context';
export { assignAction, createDealAction, integrationAction, tagAction, updateContactAction, updateDealAction };

type Action =
	| import('./create-deal').CreateDealAction
	| import('./update-deal').UpdateDealAction
	| import('./update-contact').UpdateContactAction
	| import('./tag').TagAction
	| import('./assign').AssignAction
	| import('./http-request').IntegrationAction;

/** Performs one action, its templates already rendered. */
export function performAction(ctx: ActionContext, action: Action): Promise<ActionResult> {
	switch (action.type) {
		case 'create_deal':
			return performCreateDeal(ctx, action);
		case 'update_deal':
			return performUpdateDeal(ctx, action);
		case 'update_contact':
			return performUpdateContact(ctx, action);
		case 'apply_tag':
			return performTag(ctx, action);
		case 'assign':
			return performAssign(ctx, action);
		case 'integration':
			return performHttpRequest(ctx, action);
	}
}
