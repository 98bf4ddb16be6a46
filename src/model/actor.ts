/**
 * Who caused a change: every domain event carries one, so automation can tell its own changes from a
 * person's and never react to itself (a rule that closes conversations does not fire on the close it made).
 */
import { z } from '@hono/zod-openapi';

export const ACTOR_KINDS = ['operator', 'contact', 'bot', 'scenario', 'rule', 'campaign', 'system'] as const;

export const actorSchema = z
	.object({
		kind: z
			.enum(ACTOR_KINDS)
			.openapi({ description: 'Who: an operator, the contact, a bot, a scenario, a rule, a campaign, or the system.' }),
		id: z.string().nullable().openapi({
			description: "The operator's, contact's, bot's, scenario's, rule's or campaign's id; null for the system.",
		}),
		depth: z.int().min(1).optional().openapi({
			description:
				"A rule's place in a chain of rules: 1 when a person's or the system's change fired it, 2 when another rule's did, and so on.",
		}),
	})
	.openapi('Actor');

export type Actor = z.infer<typeof actorSchema>;

/** Changes the platform makes on its own (a sweep, a migration, the workspace's automatic greeting). */
export const SYSTEM: Actor = { kind: 'system', id: null };

/** The operator (through its token) as the actor of a change it made. */
export function operatorActor(operatorId: string): Actor {
	return { kind: 'operator', id: operatorId };
}

/** The contact (a visitor, once known) as the actor of a change it caused. */
export function contactActor(contactId: string): Actor {
	return { kind: 'contact', id: contactId };
}
