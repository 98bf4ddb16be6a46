import { z } from '@hono/zod-openapi';
import { and, eq, isNull } from 'drizzle-orm';
import type { Caller } from '../../app-env';
import { tokenAge } from '../../auth/token-age';
import type { Database } from '../../db/client';
import { apiTokens } from '../../db/schema';
import { NotFound, Unauthorized } from '../../lib/errors';
import { iso } from '../../lib/ids';
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
				hint: z
					.string()
					.openapi({ description: 'Its prefix and last characters, safe to show.', example: 'prly_…x9Qe' }),
				createdAt: z.string().openapi({ description: 'When this token was issued (ISO-8601 UTC).' }),
				ageDays: z.number().int().openapi({ description: 'Whole days since the token was issued.', example: 12 }),
				rotateAfter: z.string().openapi({
					description:
						'When rotation falls due: 90 days after issue. Answers to the token carry a Deprecation header from then on.',
				}),
				rotationDue: z.boolean().openapi({ description: 'Whether the token is older than 90 days: regenerate it.' }),
			})
			.nullable()
			.openapi({
				description:
					'The token this request was made with; from the console (a session), the operator’s active token, or null when it has none.',
			}),
		via: z
			.enum(['token', 'session'])
			.openapi({ description: 'How this request authenticated: a Token V3, or the console’s session.' }),
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
	const token = caller.credential.kind === 'token' ? caller.credential : await activeToken(db, caller);
	return {
		operator: { id: operator.id, name: operator.name, email: operator.email },
		workspaceId: caller.workspaceId,
		permissions: operator.permissions,
		groups: operator.groups,
		capacity: operator.capacity,
		status: presence.find((p) => p.operatorId === caller.operatorId)?.status ?? 'offline',
		token: token && describeToken(token, now),
		via: caller.credential.kind,
	};
}

function describeToken(token: { id: string; hint: string; createdAt: number }, now: number) {
	const age = tokenAge(token.createdAt, now);
	return {
		id: token.id,
		hint: token.hint,
		createdAt: iso(token.createdAt),
		ageDays: age.ageDays,
		rotateAfter: iso(age.rotateAfter),
		rotationDue: age.rotationDue,
	};
}

/** The operator's active token (an operator holds at most one), for the console's Integrations page. */
async function activeToken(db: Database, caller: Caller) {
	const row = await db
		.select({ id: apiTokens.id, hint: apiTokens.hint, createdAt: apiTokens.createdAt })
		.from(apiTokens)
		.where(
			and(
				eq(apiTokens.workspaceId, caller.workspaceId),
				eq(apiTokens.operatorId, caller.operatorId),
				isNull(apiTokens.revokedAt),
			),
		)
		.get();
	return row ?? null;
}
