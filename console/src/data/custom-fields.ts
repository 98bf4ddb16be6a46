/**
 * Custom field definitions (Settings › Custom fields, admins): the workspace's contact and deal fields, and
 * their changes. A change reads again every list of definitions (the widget form's, a deal's) and the
 * directory, which labels the values everywhere else.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../api/client';
import { keys } from './keys';

export type CustomField = Schemas['CustomFieldDefinition'];
export type CustomFieldEntity = CustomField['entity'];

/** Every definition of `entity` (100 at most per entity, the API's own limit, so one page holds them). */
export function useCustomFields(entity: CustomFieldEntity, enabled = true) {
	return useQuery({
		queryKey: keys.customFields(entity),
		queryFn: () => ok(api.GET('/v3/custom-fields', { params: { query: { entity, limit: 100 } } })),
		enabled,
	});
}

/** Defines, changes and deletes fields; each answer reads the definitions and the directory again. */
export function useCustomFieldChanges() {
	const client = useQueryClient();
	const refresh = async () => {
		await client.invalidateQueries({ queryKey: keys.customFieldsAll });
		await client.invalidateQueries({ queryKey: keys.directory });
	};
	return {
		create: useMutation({
			mutationFn: (body: Schemas['NewCustomField']) => ok(api.POST('/v3/custom-fields', { body })),
			onSuccess: refresh,
		}),
		update: useMutation({
			mutationFn: ({ id, body }: { id: string; body: Schemas['CustomFieldChanges'] }) =>
				ok(api.PATCH('/v3/custom-fields/{id}', { params: { path: { id } }, body })),
			onSuccess: refresh,
		}),
		remove: useMutation({
			mutationFn: (id: string) => ok(api.DELETE('/v3/custom-fields/{id}', { params: { path: { id } } })),
			onSuccess: refresh,
		}),
	};
}
