/**
 * The workspace's directory: what every operator's console needs to name things and offer choices, readable
 * with `conversations:read` where the full records are the admins' (members with their e-mails and
 * permissions, bot definitions, custom field settings). Names and ids only; one D1 round trip.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { bots, customFields, groups, operatorGroups, operators } from '../../db/schema';
import { CUSTOM_FIELD_ENTITIES, CUSTOM_FIELD_TYPES } from '../../db/schema/custom-fields';

export const directorySchema = z
	.object({
		operators: z
			.array(
				z.object({
					id: z.string().openapi({ description: 'The operator id.' }),
					name: z.string().openapi({ description: 'Its name.' }),
					groupIds: z.array(z.string()).openapi({ description: 'The groups it belongs to.' }),
					disabled: z
						.boolean()
						.openapi({ description: 'Disabled: kept so earlier messages and assignments keep a name.' }),
				}),
			)
			.openapi({ description: 'Every operator of the workspace, by name.' }),
		groups: z
			.array(
				z.object({
					id: z.string().openapi({ description: 'The group id.' }),
					name: z.string().openapi({ description: 'Its name.' }),
				}),
			)
			.openapi({ description: 'Every group, by name.' }),
		bots: z
			.array(
				z.object({
					id: z.string().openapi({ description: 'The bot id.' }),
					name: z.string().openapi({ description: 'Its name.' }),
				}),
			)
			.openapi({ description: 'The bots an operator may start by hand: enabled, published, with the manual trigger.' }),
		customFields: z
			.array(
				z.object({
					entity: z.enum(CUSTOM_FIELD_ENTITIES).openapi({ description: 'What holds the values: contacts or deals.' }),
					key: z.string().openapi({ description: 'The name values are stored under (in `customFields`).' }),
					label: z.string().openapi({ description: 'What people see.' }),
					type: z.enum(CUSTOM_FIELD_TYPES).openapi({ description: 'What a value must be.' }),
					options: z
						.array(z.string())
						.nullable()
						.openapi({ description: 'The choices of a `select` field; else null.' }),
					required: z.boolean().openapi({ description: 'Whether every record must have a value.' }),
				}),
			)
			.openapi({ description: 'How contacts’ and deals’ custom fields are labelled and what they hold.' }),
	})
	.openapi('Directory');

export type Directory = z.infer<typeof directorySchema>;

/** The directory of one workspace, every part scoped to it, read in one batch. */
export async function workspaceDirectory(db: Database, workspaceId: string): Promise<Directory> {
	const [people, memberships, teams, startable, fields] = await db.batch([
		db
			.select({ id: operators.id, name: operators.name, disabledAt: operators.disabledAt })
			.from(operators)
			.where(eq(operators.workspaceId, workspaceId))
			.orderBy(asc(operators.name), asc(operators.id)),
		db
			.select({ operatorId: operatorGroups.operatorId, groupId: operatorGroups.groupId })
			.from(operatorGroups)
			.where(eq(operatorGroups.workspaceId, workspaceId)),
		db
			.select({ id: groups.id, name: groups.name })
			.from(groups)
			.where(eq(groups.workspaceId, workspaceId))
			.orderBy(asc(groups.name)),
		db
			.select({ id: bots.id, name: bots.name })
			.from(bots)
			.where(
				and(
					eq(bots.workspaceId, workspaceId),
					eq(bots.trigger, 'manual'),
					eq(bots.enabled, true),
					isNotNull(bots.publishedVersion),
				),
			)
			.orderBy(asc(bots.name)),
		db
			.select({
				entity: customFields.entity,
				key: customFields.key,
				label: customFields.label,
				type: customFields.type,
				options: customFields.options,
				required: customFields.required,
			})
			.from(customFields)
			.where(eq(customFields.workspaceId, workspaceId))
			.orderBy(asc(customFields.entity), asc(customFields.label)),
	]);
	const groupsOf = new Map<string, string[]>();
	for (const { operatorId, groupId } of memberships)
		groupsOf.set(operatorId, [...(groupsOf.get(operatorId) ?? []), groupId]);
	return {
		operators: people.map((p) => ({
			id: p.id,
			name: p.name,
			groupIds: groupsOf.get(p.id) ?? [],
			disabled: p.disabledAt !== null,
		})),
		groups: teams,
		bots: startable,
		customFields: fields,
	};
}
