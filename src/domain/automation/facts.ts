/**
 * The facts a condition reads about the world, loaded for the roots it references (`referencedFacts`) and
 * nothing more: a Decision on the visitor's answer costs no query. Shared by bots, scenarios and rules.
 *
 * - `contact`: name, email, phone, customFields, tags (names), conversationCount;
 * - `conversation`: id, channel, status, assigneeId, groupId, tags (names);
 * - `businessHours`: open (the workspace's weekly schedule and holidays, now, in its time zone) and period
 *   (`in_hours`, `out_of_hours`, `weekend`, `holiday`);
 * - `agents`: available (how many operators could take the conversation now: online, enabled, under
 *   capacity), online (how many are online);
 * - `deal`: the deal the flow is about (the one `vars.deal_id` names, else the contact's most recently changed
 *   open deal): id, name, status, stage, funnel, value (in minor units), currency.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { contacts, conversations, deals, funnels, stages } from '../../db/schema';
import type { FactRoot, Facts } from '../../engines/conditions';
import { availabilityAt } from '../../model/business-hours';
import { tagNames } from '../conversations/conversations';
import { tagNamesOfContact } from '../crm/contact-records';
import { availableOperators } from '../team/presence';
import { loadWidgetSettings, type StoredWidgetSettings } from '../widget/settings';

export interface FactScope {
	workspaceId: string;
	conversationId: string | null;
	contactId: string | null;
	variables: Readonly<Record<string, unknown>>;
	now: number;
	/** Facts the caller has read already (the rules' scene reads the conversation): not read again. */
	known?: Partial<Record<FactRoot, unknown>>;
	/** The workspace's widget settings, when the caller reads them anyway (for business hours). */
	settings?: Promise<StoredWidgetSettings>;
}

/** Loads the facts under `roots` (besides `answer` and `vars`, which the run has), in parallel. */
export async function loadFacts(env: Env, db: Database, scope: FactScope, roots: Iterable<FactRoot>): Promise<Facts> {
	const loaders: Partial<Record<FactRoot, () => Promise<unknown>>> = {
		contact: async () => (scope.contactId === null ? undefined : contactFacts(db, scope.workspaceId, scope.contactId)),
		conversation: async () =>
			scope.conversationId === null ? undefined : conversationFacts(db, scope.workspaceId, scope.conversationId),
		businessHours: async () => {
			const { settings } = await (scope.settings ?? loadWidgetSettings(db, scope.workspaceId));
			const { online, period } = availabilityAt(settings.businessHours, new Date(scope.now));
			return { open: online, period };
		},
		agents: async () => ({ available: (await availableOperators(env, db, scope.workspaceId)).length }),
		deal: () => dealFacts(db, scope),
	};
	const known = scope.known ?? {};
	const wanted = [...new Set(roots)].filter((root) => loaders[root] !== undefined);
	const values = await Promise.all(wanted.map((root) => (root in known ? known[root] : loaders[root]?.())));
	return Object.fromEntries(wanted.map((root, i) => [root, values[i]]).filter(([, value]) => value !== undefined));
}

async function contactFacts(db: Database, workspaceId: string, id: string) {
	const conversationCount = sql<number>`(SELECT count(*) FROM conversations c WHERE c.workspace_id = contacts.workspace_id AND c.contact_id = contacts.id)`;
	const row = await db
		.select({
			name: contacts.name,
			email: contacts.email,
			phone: contacts.phone,
			customFields: contacts.customFields,
			tags: tagNamesOfContact,
			conversationCount,
		})
		.from(contacts)
		.where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id)))
		.get();
	return row ? { ...row, tags: JSON.parse(row.tags ?? '[]') as string[] } : undefined;
}

/** The name of a conversation's assignee, read with the conversation (a rule's `{{ agent.name }}`). */
const assigneeName = sql<
	string | null
>`(SELECT o.name FROM operators o WHERE o.workspace_id = conversations.workspace_id AND o.id = conversations.assignee_id)`;

/**
 * A conversation's facts, with what a rule's scene needs besides (its contact, when it began, since when its
 * customer waits, its assignee's name), in one read.
 */
export async function conversationRecord(db: Database, workspaceId: string, id: string) {
	const row = await db
		.select({
			id: conversations.id,
			channel: conversations.channel,
			status: conversations.status,
			assigneeId: conversations.assigneeId,
			groupId: conversations.groupId,
			tags: tagNames,
			contactId: conversations.contactId,
			createdAt: conversations.createdAt,
			waitingSince: conversations.waitingSince,
			assigneeName,
		})
		.from(conversations)
		.where(and(eq(conversations.workspaceId, workspaceId), eq(conversations.id, id)))
		.get();
	if (!row) return undefined;
	const { contactId, createdAt, waitingSince, assigneeName: name, tags, ...facts } = row;
	return {
		facts: { ...facts, tags: JSON.parse(tags) as string[] },
		contactId,
		createdAt,
		waitingSince,
		assignee: facts.assigneeId === null || name === null ? null : { id: facts.assigneeId, name },
	};
}

async function conversationFacts(db: Database, workspaceId: string, id: string) {
	return (await conversationRecord(db, workspaceId, id))?.facts;
}

async function dealFacts(db: Database, scope: FactScope) {
	const named = scope.variables.deal_id;
	const which =
		typeof named === 'string' && named !== ''
			? eq(deals.id, named)
			: scope.contactId !== null
				? and(eq(deals.contactId, scope.contactId), eq(deals.status, 'open'))
				: undefined;
	if (which === undefined) return undefined;
	const row = await db
		.select({
			id: deals.id,
			name: deals.name,
			status: deals.status,
			stage: stages.name,
			funnel: funnels.name,
			value: deals.valueCents,
			currency: deals.currency,
		})
		.from(deals)
		.innerJoin(stages, eq(stages.id, deals.stageId))
		.innerJoin(funnels, eq(funnels.id, deals.funnelId))
		.where(and(eq(deals.workspaceId, scope.workspaceId), which))
		.orderBy(desc(deals.updatedAt), desc(deals.id))
		.get();
	return row ?? undefined;
}
