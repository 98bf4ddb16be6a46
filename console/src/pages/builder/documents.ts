/**
 * What the builder asks of the API for each kind of document: a bot's or a scenario's draft, saving it,
 * publishing, the versions and rolling back to one. One editor serves both through these.
 */
import { api, ifMatch, ok, okVersioned, type Versioned } from '../../api/client';
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
	load(id: string): Promise<Versioned<Saved>>;
	/** Saves the draft over the version the editor pinned (`pinVersion`); a 412 when someone changed it since. */
	save(id: string, definition: Definition): Promise<Versioned<Saved>>;
	publish(id: string): Promise<unknown>;
	versions(id: string): Promise<VersionSummary[]>;
	version(id: string, version: number): Promise<Definition>;
	/** Makes an earlier version the one new runs start with. */
	rollback(id: string, version: number): Promise<unknown>;
}

const at = (id: string) => ({ params: { path: { id } } });

/**
 * The version (ETag) each open document's draft is based on: pinned when the editor takes a draft in, moved
 * by the builder's own writes (save, settings, publish, rollback), never by a refetch behind the editor.
 */
const pinned = new Map<string, string | null>();

export function pinVersion(id: string, etag: string | null): void {
	pinned.set(id, etag);
}

/** The If-Match option of a write to the document `id`. */
export function pinnedVersion(id: string) {
	return ifMatch(pinned.get(id));
}

/** Runs one of the builder's own writes and pins the version it answers with. */
async function pinning<T>(id: string, write: Promise<Versioned<T>>): Promise<Versioned<T>> {
	const answer = await write;
	pinVersion(id, answer.etag);
	return answer;
}
const atVersion = (id: string, version: number) => ({ params: { path: { id, version } } });

export const bots: DocumentApi = {
	kind: 'bot',
	load: async (id) => (await okVersioned(api.GET('/v3/bots/{id}', at(id)))) as unknown as Versioned<Saved>,
	save: async (id, definition) => {
		const body = { definition: definition as never };
		const write = okVersioned(api.PATCH('/v3/bots/{id}', { ...at(id), body, ...pinnedVersion(id) }));
		return (await pinning(id, write)) as unknown as Versioned<Saved>;
	},
	publish: (id) => pinning(id, okVersioned(api.POST('/v3/bots/{id}/publish', at(id)))),
	versions: async (id) => (await ok(api.GET('/v3/bots/{id}/versions', at(id)))).data as VersionSummary[],
	version: async (id, version) =>
		(await ok(api.GET('/v3/bots/{id}/versions/{version}', atVersion(id, version)))).definition as unknown as Definition,
	rollback: (id, version) =>
		pinning(id, okVersioned(api.POST('/v3/bots/{id}/versions/{version}/publish', atVersion(id, version)))),
};

export const scenarios: DocumentApi = {
	kind: 'scenario',
	load: async (id) => (await okVersioned(api.GET('/v3/scenarios/{id}', at(id)))) as unknown as Versioned<Saved>,
	save: async (id, definition) => {
		const body = { definition: definition as never };
		const write = okVersioned(api.PATCH('/v3/scenarios/{id}', { ...at(id), body, ...pinnedVersion(id) }));
		return (await pinning(id, write)) as unknown as Versioned<Saved>;
	},
	publish: (id) => pinning(id, okVersioned(api.POST('/v3/scenarios/{id}/publish', at(id)))),
	versions: async (id) => (await ok(api.GET('/v3/scenarios/{id}/versions', at(id)))).data as VersionSummary[],
	version: async (id, version) =>
		(await ok(api.GET('/v3/scenarios/{id}/versions/{version}', atVersion(id, version))))
			.definition as unknown as Definition,
	rollback: (id, version) =>
		pinning(id, okVersioned(api.POST('/v3/scenarios/{id}/versions/{version}/publish', atVersion(id, version)))),
};
