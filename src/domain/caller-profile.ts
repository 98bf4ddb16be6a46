import { z } from '@hono/zod-openapi';
import type { Caller } from '../app-env';
import { tokenAge } from '../auth/token-age';
import type { Database } from '../db/client';
import { NotFound, Unauthorized } from '../lib/errors';
import { iso } from '../lib/ids';
import { getMember, memberSchema } from './members';
import { presenceSchema, teamPresence } from './presence';

export const callerProfileSchema = z
	.object({
		operator: memberSchema
			.pick({ id: true, name: true, email: true })
			.openapi({ description: 'The operator the token acts as.' }),
		workspaceId: z
			.string()
			.openapi({ description: 'The workspace the token belongs to.', example: 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		permissions: memberSchema.shape.permissions,
		groups: memberSchema.shape.groups,
		capacity: memberSchema.shape.capacity,
		status: presenceSchema.shape.status,
		token: z
			.object({
				id: z.string().openapi({
					description: 'The token’s id (never the token itself).',
					example: 'tok_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
				}),
				createdAt: z.string().openapi({ description: 'When this token was issued (ISO-8601 UTC).' }),
				ageDays: z.number().int().openapi({ description: 'Whole days since the token was issued.', example: 12 }),
				rotateAfter: z.string().openapi({
					description:
						'When rotation falls due: 90 days after issue. Answers to the token carry a Deprecation header from then on.',
				}),
				rotationDue: z.boolean().openapi({ description: 'Whether the token is older than 90 days: regenerate it.' }),
			})
			.openapi({ description: 'The token this request was made with.' }),
	})
	.openapi('CallerProfile');

export type CallerProfile = z.infer<typeof callerProfileSchema>;

/** Who the calling token acts as, and how old it is: what an integrator checks before rotating it. */
export async function describeCaller(env: Env, db: Database, caller: Caller, now = Date.now()): Promise<CallerProfile> {
	// The token was valid a moment ago; an operator gone since then leaves nothing to describe.
	const [operator, presence] = await Promise.all([
		getMember(db, caller.workspaceId, caller.operatorId).catch((error: unknown) => {
			if (error instanceof NotFound) throw new Unauthorized('Invalid API token: unknown or revoked.');
			throw error;
		}),
		teamPresence(env, caller.workspaceId),
	]);
	const age = tokenAge(caller.tokenCreatedAt, now);
	return {
		operator: { id: operator.id, name: operator.name, email: operator.email },
		workspaceId: caller.workspaceId,
		permissions: operator.permissions,
		groups: operator.groups,
		capacity: operator.capacity,
		status: presence.find((p) => p.operatorId === caller.operatorId)?.status ?? 'offline',
		token: {
			id: caller.tokenId,
			createdAt: iso(caller.tokenCreatedAt),
			ageDays: age.ageDays,
			rotateAfter: iso(age.rotateAfter),
			rotationDue: age.rotationDue,
		},
	};
}
