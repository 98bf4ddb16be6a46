/**
 * What the builder asks of the API for each kind of document: the list and a new one, a bot's or a scenario's
 * draft, saving it and its settings, publishing, the versions and rolling back to one. One editor serves
 * both through these; the builder's hooks (data/builder.ts) cache what they answer.
 */
import { api, ifMatch, ok, okVersioned, type Versioned } from '../api/client';
import type { Definition, DocumentKind } from '../pages/builder/schema';

export interface Saved {
	id: string;
	name: string;
	enabled: boolean;
	draft: Definition;
	publishedVersion: number | null;
	lastVersion: number;
	updatedAt: string;
}

interface VersionSummary {
	version: number;
	/** Whether new runs start with it now. */
	published: boolean;
	createdAt: string;
}

export interface DocumentApi {
	kind: DocumentKind;
	/** The newest hundred. */
	list(): Promise<unknown[]>;
	/** A new document, disabled, with a first definition to start from. */
	create(name: string): Promise<{ id: string }>;
	load(id: string): Promise<Versioned<Saved>>;
	/** Saves the draft over the version the editor pinned (`pinVersion`); a 412 when someone changed it since. */
	save(id: string, definition: Definition): Promise<Versioned<Saved>>;
	/** Saves changed settings (name, enabled, trigger…) over the pinned version, and pins the answer's. */
	saveSettings(id: string, changes: Record<string, unknown>): Promise<Versioned<Saved>>;
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
function pinnedVersion(id: string) {
	return ifMatch(pinned.get(id));
}

/** Runs one of the builder's own writes and pins the version it answers with. */
async function pinning<T>(id: string, write: Promise<Versioned<T>>): Promise<Versioned<T>> {
	const answer = await write;
	pinVersion(id, answer.etag);
	return answer;
}
const atVersion = (id: string, version: number) => ({ params: { path: { id, version } } });

const FIRST_BOT = { start: 'welcome', steps: [{ id: 'welcome', type: 'send_message', text: 'Hi! How can we help?' }] };
const FIRST_SCENARIO = { start: 'done', steps: [{ id: 'done', type: 'end' }] };

export const bots: DocumentApi = {
	kind: 'bot',
	list: async () => (await ok(api.GET('/v3/bots', { params: { query: { limit: 100 } } }))).data,
	create: (name) =>
		ok(
			api.POST('/v3/bots', {
				body: { name, trigger: { kind: 'new_conversation' }, enabled: false, definition: FIRST_BOT as never },
			}),
		),
	load: async (id) => (await okVersioned(api.GET('/v3/bots/{id}', at(id)))) as unknown as Versioned<Saved>,
	save: async (id, definition) => {
		const body = { definition: definition as never };
		const write = okVersioned(api.PATCH('/v3/bots/{id}', { ...at(id), body, ...pinnedVersion(id) }));
		return (await pinning(id, write)) as unknown as Versioned<Saved>;
	},
	saveSettings: async (id, changes) => {
		const write = okVersioned(api.PATCH('/v3/bots/{id}', { ...at(id), body: changes as never, ...pinnedVersion(id) }));
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
	list: async () => (await ok(api.GET('/v3/scenarios', { params: { query: { limit: 100 } } }))).data,
	create: (name) =>
		ok(api.POST('/v3/scenarios', { body: { name, enabled: false, definition: FIRST_SCENARIO as never } })),
	load: async (id) => (await okVersioned(api.GET('/v3/scenarios/{id}', at(id)))) as unknown as Versioned<Saved>,
	save: async (id, definition) => {
		const body = { definition: definition as never };
		const write = okVersioned(api.PATCH('/v3/scenarios/{id}', { ...at(id), body, ...pinnedVersion(id) }));
		return (await pinning(id, write)) as unknown as Versioned<Saved>;
	},
	saveSettings: async (id, changes) => {
		const body = changes as never;
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

/** The documents of a kind. */
export const documentsOf = (kind: DocumentKind): DocumentApi => (kind === 'bot' ? bots : scenarios);
