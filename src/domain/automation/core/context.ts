/**
 * What every action of the automation core runs with, and what it answers. Bots, scenarios and rules each
 * build an `ActionContext` from their scene (./scene.ts: the conversation, contact and workspace locale they
 * act in); the action modules do the rest through the domain functions the API uses, so an action cannot do
 * what an API call could not.
 */
import type { Database } from '../../../db/client';
import type { RunKind } from '../../../engines/actions/catalogue';
import type { AmountLocale } from '../../../engines/values';
import { AppError } from '../../../lib/errors';
import { OutboundError } from '../../../lib/guarded-fetch';
import type { Actor } from '../../../model/actor';

/** The run an action is a step of: its runner decides which actions it may take, and its keys (./keys.ts). */
interface RunRef {
	kind: RunKind;
	/** The run: a bot run's id, a scenario run's, a rule's execution as `<rule id>:<event id>`. */
	id: string;
}

export interface ActionContext {
	env: Env;
	db: Database;
	workspaceId: string;
	run: RunRef;
	/** Who the changes are announced as: the bot, the scenario or the rule. */
	actor: Actor;
	/** The rule, by name, that a rule's notification names; absent for the other runners. */
	rule?: { id: string; name: string };
	/** The bot, by name, that a bot's notification names; absent for the other runners. */
	bot?: { id: string; name: string };
	/** The conversation the automation runs in, and its contact; null when it has none. */
	conversationId: string | null;
	contactId: string | null;
	/** The run's variables (an update_deal's `dealVariable` is read here). */
	variables: Readonly<Record<string, unknown>>;
	/** How amounts are read ("1.500,00" in `pt`, "1,500.00" in `en`): the workspace's widget locale. */
	locale: AmountLocale;
	now: number;
	/** The network, for outbound calls; a test passes its stand-in. */
	transport?: typeof fetch;
	/** The calls Parley made to itself in a row that led to this work (a scenario run's); 0 when none did. */
	hops?: number;
	/**
	 * The step's key in the one scheme (./keys.ts: run kind, run id, step key): what makes creating a
	 * conversation, posting a message or starting a bot idempotent, so a retried step finds what its first try
	 * made. Set by `runStep` (./steps.ts).
	 */
	idempotencyKey?: string;
}

/**
 * An action's outcome: done (with data for the run's variables and its log), refused (the reason is the
 * step's error, and its error path is taken), or, for update_deal, no deal to change, for a Find, nothing
 * found.
 */
export type ActionResult =
	| { ok: true; data?: unknown; noDeal?: false; notFound?: false }
	| { ok: false; error: string; data?: unknown; noDeal?: false; notFound?: false; retryable?: boolean }
	| { ok: true; noDeal: true }
	/** A Find step that found nothing. */
	| { ok: true; notFound: true };

export function refused(error: string, data?: unknown): ActionResult {
	return data === undefined ? { ok: false, error } : { ok: false, error, data };
}

/**
 * Runs an action, turning what the workspace's own data refuses (an unknown stage, an e-mail another contact
 * has, a call refused by the guarded fetch) into a refusal. Anything else (D1 down) is thrown: the runner
 * retries the step later rather than send the run down its error path for a fault of ours. A timeout or a
 * failed connection is a refusal marked `retryable`: a scenario's HTTP step tries again with a backoff.
 */
export async function refusedOn(run: () => Promise<ActionResult>): Promise<ActionResult> {
	try {
		return await run();
	} catch (error) {
		if (error instanceof OutboundError && error.transient) return { ok: false, error: error.message, retryable: true };
		if (error instanceof AppError || error instanceof OutboundError) return refused(error.message);
		throw error;
	}
}

/** The rendered text of a field, or undefined when it is absent or rendered empty (a missing variable). */
export function given(value: string | undefined): string | undefined {
	const text = value?.trim();
	return text ? text : undefined;
}

/** A record of rendered values without those rendered empty: a missing variable sets nothing. */
export function givenValues(values: Record<string, string> | undefined): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(values ?? {})) {
		const text = given(value);
		if (text !== undefined) out[key] = text;
	}
	return out;
}

/** The conversation or contact an action needs, or why the run has none. */
export function needs<K extends 'conversationId' | 'contactId'>(ctx: ActionContext, key: K): string {
	const id = ctx[key];
	if (id === null) throw new NoTarget(key === 'conversationId' ? 'no conversation' : 'the conversation has no contact');
	return id;
}

class NoTarget extends AppError {
	constructor(message: string) {
		super('invalid', message);
	}
}
