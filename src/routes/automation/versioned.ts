/**
 * The routes every versioned automation document has (bots, scenarios): publish the draft, list the versions,
 * read one, publish an older one again (roll back). Each owner passes its names, schemas and domain functions.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';
import { errorResponses, idParam, jsonResponse, requires } from '../../http/openapi';
import { etagged, tagged } from '../../lib/etag';
import { type Actor, operatorActor } from '../../model/actor';

interface VersionedRoutes<View extends { updatedAt: string }, Definition> {
	/** `bot` or `scenario`, as operation ids and sentences name it. */
	noun: 'bot' | 'scenario';
	idExample: string;
	schema: z.ZodType<View>;
	example: z.input<z.ZodType<View>>;
	versionSchema: z.ZodType;
	exampleDefinition: Definition;
	publish(
		env: Env,
		db: AppEnv['Variables']['db'],
		workspaceId: string,
		id: string,
		version: number | undefined,
		operatorId: string | null,
		actor: Actor,
	): Promise<View>;
	listVersions(db: AppEnv['Variables']['db'], workspaceId: string, id: string): Promise<unknown>;
	getVersion(db: AppEnv['Variables']['db'], workspaceId: string, id: string, version: number): Promise<unknown>;
}

const capital = (noun: string) => noun[0]?.toUpperCase() + noun.slice(1);

/** The path parameters `{id}` and `{id}/versions/{version}` of an owner. */
export function versionedParams(noun: string, idExample: string) {
	const idParams = z.object({ id: idParam('id', idExample, `The ${noun} id.`) });
	const versionParams = idParams.extend({
		version: z.coerce
			.number()
			.int()
			.min(1)
			.max(Number.MAX_SAFE_INTEGER)
			.openapi({ param: { name: 'version', in: 'path', description: 'The version number.' }, example: 1 }),
	});
	return { idParams, versionParams };
}

export function addVersionRoutes<View extends { updatedAt: string }, Definition>(
	router: OpenAPIHono<AppEnv>,
	spec: VersionedRoutes<View, Definition>,
): void {
	const Noun = capital(spec.noun);
	const { idParams, versionParams } = versionedParams(spec.noun, spec.idExample);
	const versionList = z
		.object({ data: z.array(spec.versionSchema).openapi({ description: 'Newest first, without definitions.' }) })
		.openapi(`${Noun}VersionList`);
	const createdAt = '2026-11-23T12:00:00.000Z';
	const publish = (c: Context<AppEnv>, version: number | undefined) => {
		const { workspaceId, operatorId } = c.var.caller;
		return spec.publish(
			c.env,
			c.var.db,
			workspaceId,
			c.req.param('id') as string,
			version,
			operatorId,
			operatorActor(operatorId),
		);
	};
	router.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/publish',
			operationId: `publish${Noun}`,
			summary: 'Publish the draft as a new version',
			description:
				'Freezes the draft (checked again) as the next version, which new runs start with from now on; runs under way keep theirs.',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: etagged(jsonResponse(`The ${spec.noun}, with its new published version.`, spec.schema, spec.example)),
				...errorResponses(403, 404, 409, 422),
			},
		}),
		async (c) => c.json(tagged(c, await publish(c, undefined)) as never, 200),
	);
	router.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/versions',
			operationId: `list${Noun}Versions`,
			summary: `A ${spec.noun}'s versions`,
			description: 'Every published version, newest first; `published` marks the one new runs start with.',
			...requires('admin'),
			request: { params: idParams },
			responses: {
				200: jsonResponse('The versions.', versionList, {
					data: [{ version: 1, published: true, publishedBy: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T', createdAt }],
				}),
				...errorResponses(403, 404),
			},
		}),
		async (c) =>
			c.json((await spec.listVersions(c.var.db, c.var.caller.workspaceId, c.req.valid('param').id)) as never, 200),
	);
	router.openapi(
		createRoute({
			method: 'get',
			path: '/{id}/versions/{version}',
			operationId: `get${Noun}Version`,
			summary: `One version of a ${spec.noun}, with its definition`,
			description: 'The definition as it was frozen.',
			...requires('admin'),
			request: { params: versionParams },
			responses: {
				200: jsonResponse('The version.', spec.versionSchema, {
					version: 1,
					published: true,
					publishedBy: 'op_01JD3Q8Z6Y2V7K1N4M5P6R7S8T',
					createdAt,
					definition: spec.exampleDefinition,
				}),
				...errorResponses(403, 404, 422),
			},
		}),
		async (c) => {
			const { id, version } = c.req.valid('param');
			return c.json((await spec.getVersion(c.var.db, c.var.caller.workspaceId, id, version)) as never, 200);
		},
	);
	router.openapi(
		createRoute({
			method: 'post',
			path: '/{id}/versions/{version}/publish',
			operationId: `rollback${Noun}`,
			summary: 'Publish an older version again (roll back)',
			description: 'New runs start with that version from now on; the draft is not touched.',
			...requires('admin'),
			request: { params: versionParams },
			responses: {
				200: etagged(jsonResponse(`The ${spec.noun}, with the version now published.`, spec.schema, spec.example)),
				...errorResponses(403, 404, 409, 422),
			},
		}),
		async (c) => c.json(tagged(c, await publish(c, c.req.valid('param').version)) as never, 200),
	);
}
