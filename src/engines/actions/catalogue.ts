/**
 * The one action catalogue: every action an automation may take, as the automation core performs it (its
 * templates rendered), and which of them each runner may use. Bots, scenarios and rules share the actions
 * (assign, tag, update the contact, deals, HTTP calls), bots and rules notify the team; each runner adds its
 * own (a scenario finds and creates records, a rule starts bots and creates tasks). A scenario's action also names the record it acts on
 * (`contact`, `targetId`, `conversation`), since a scenario has no conversation of its own.
 *
 * Pure: the builders' schemas are beside each action (./assign.ts, ./deals.ts...); the perform functions are
 * src/domain/automation/core/actions/.
 */
import type { AssignAction, HandoffAction } from './assign';
import type { CreateDealAction, UpdateDealAction } from './deals';
import type { HttpRequest, IntegrationAction } from './http-request';
import type { CreateTaskAction, NotifyAction, SaveToCrmAction, StartBotAction } from './rule-actions';
import type { TagAction } from './tag';
import type { UpdateContactAction } from './update-contact';

/** The runners of automation, each with its run: a bot's in a conversation's room, a scenario's, a rule's. */
export const RUN_KINDS = ['bot', 'scenario', 'rule'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** A scenario's action names the contact it acts on (a template rendered to its id). */
interface OnContact {
	contact?: string;
}

export type CatalogueAction =
	| AssignAction
	| HandoffAction
	| (TagAction & { targetId?: string })
	| (UpdateContactAction & OnContact)
	| (CreateDealAction & OnContact)
	| (UpdateDealAction & OnContact)
	| IntegrationAction
	| ({ type: 'http_request' } & HttpRequest)
	| { type: 'find_contact'; by: 'email' | 'phone' | 'id'; value: string }
	| {
			type: 'create_contact';
			name?: string;
			email?: string;
			phone?: string;
			custom_fields?: Record<string, string>;
	  }
	| { type: 'find_conversation'; contact: string; channel?: string; open: boolean }
	| { type: 'create_conversation'; contact: string; channel: string; message?: string }
	/** In the run's conversation, or in the one a scenario names. */
	| { type: 'send_message'; conversation?: string; text: string; buttons?: string[] }
	| StartBotAction
	| CreateTaskAction
	| SaveToCrmAction
	| NotifyAction;

export type ActionType = CatalogueAction['type'];

/** The actions each runner may take: what its definitions offer, checked again when one is performed. */
export const RUNNER_ACTIONS: Record<RunKind, ReadonlySet<ActionType>> = {
	bot: new Set(['create_deal', 'update_deal', 'integration', 'assign', 'apply_tag', 'update_contact', 'notify']),
	scenario: new Set([
		'find_contact',
		'create_contact',
		'update_contact',
		'find_conversation',
		'create_conversation',
		'send_message',
		'create_deal',
		'update_deal',
		'apply_tag',
		'http_request',
	]),
	rule: new Set([
		'send_message',
		'start_bot',
		'assign',
		'apply_tag',
		'update_contact',
		'create_task',
		'save_to_crm',
		'notify',
	]),
};
