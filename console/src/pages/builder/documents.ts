/**
 * What the builder asks of the API for each kind of document: a bot's or a scenario's draft, saving it,
 * publishing, the versions and rolling back to one. One editor serves both through these.
 */
import { api, ok } from '../../api/client';
import type { Definition, DocumentKind } from './schema';

export interface Saved {
	id: string;
	name: string;
	enabled: boolean;
	draft: Definition;
	publishedVersion: number | null;
	lastVersion: number;
	updatedAt: string;
}

export interface VersionSummary {
	version: number;
	/** Whether new runs start with it now. */
	published: boolean;
	createdAt: string;
}

export interface DocumentApi {
	kind: DocumentKind;
	load(id: string): Promise<Saved>;
	save(id: string, definition: Definition): Promise<Saved>;
	publish(id: string): Promise<unknown>;
	versions(id: string): Promise<VersionSummary[]>;
	version(id: string, version: number): Promise<Definition>;
	/** Makes an earlier version the one new runs start with. */
	rollback(id: string, version: number): Promise<unknown>;
}

const at = (id: string) => ({ params: { path: { id } } });
const atVersion = (id: string, version: number) => ({ params: { path: { id, version } } });

export const bots: DocumentApi = {
	kind: 'bot',
	load: async (id) => (await ok(api.GET('/v3/bots/{id}', at(id)))) as unknown as Saved,
	save: async (id, definition) =>
		(await ok(
			api.PATCH('/v3/bots/{id}', { ...at(id), body: { definition: definition as never } }),
		)) as unknown as Saved,
	publish: (id) => ok(api.POST('/v3/bots/{id}/publish', at(id))),
	versions: async (id) => (await ok(api.GET('/v3/bots/{id}/versions', at(id)))).data as VersionSummary[],
	version: async (id, version) =>
		(await ok(api.GET('/v3/bots/{id}/versions/{version}', atVersion(id, version)))).definition as unknown as Definition,
	rollback: (id, version) => ok(api.POST('/v3/bots/{id}/versions/{version}/publish', atVersion(id, version))),
};

export const scenarios: DocumentApi = {
	kind: 'scenario',
	load: async (id) => (await ok(api.GET('/v3/scenarios/{id}', at(id)))) as unknown as Saved,
	save: async (id, definition) =>
		(await ok(
			api.PATCH('/v3/scenarios/{id}', { ...at(id), body: { definition: definition as never } }),
		)) as unknown as Saved,
	publish: (id) => ok(api.POST('/v3/scenarios/{id}/publish', at(id))),
	versions: async (id) => (await ok(api.GET('/v3/scenarios/{id}/versions', at(id)))).data as VersionSummary[],
	version: async (id, version) =>
		(await ok(api.GET('/v3/scenarios/{id}/versions/{version}', atVersion(id, version))))
			.definition as unknown as Definition,
	rollback: (id, version) => ok(api.POST('/v3/scenarios/{id}/versions/{version}/publish', atVersion(id, version))),
};
