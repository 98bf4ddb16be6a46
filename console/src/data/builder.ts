/**
 * The builders' reads and writes, cached by kind (`keys.documents`): the list of bots or scenarios, one
 * document with its versions and runs, a scenario's resume and the workspace's flood limit, and the
 * requests the editor makes without caching them (simulate, test, a template's preview, an Integration's test).
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, okVersioned, type Versioned } from '../api/client';
import type { paths } from '../api/schema';
import type { Definition, DocumentKind } from '../pages/builder/schema';
import { type DocumentApi, documentsOf, pinVersion, type Saved } from './documents';
import { keys } from './keys';

type SimulateBody = paths['/v3/bots/simulate']['post']['requestBody']['content']['application/json'];
type PreviewBody = paths['/v3/templates/preview']['post']['requestBody']['content']['application/json'];

/** The newest hundred of a kind. */
export function useDocumentList(kind: DocumentKind) {
	return useQuery({ queryKey: keys.documents.list(kind), queryFn: () => documentsOf(kind).list() });
}

/** The document `id` with the version it was read at. */
export function useDocument(documents: DocumentApi, id: string) {
	return useQuery({ queryKey: keys.documents.one(documents.kind, id), queryFn: () => documents.load(id) });
}

/**
 * The open document's cache: `show` puts a document read or written there; `published` reads it again with
 * what publishing or a rollback changed (its versions too, under its key); `settingsSaved` shows the answer
 * and reads the list again (its name and state are there).
 */
export function useDocumentCache(kind: DocumentKind, id: string) {
	const client = useQueryClient();
	const show = (fresh: Versioned<Saved>) => client.setQueryData(keys.documents.one(kind, id), fresh);
	return {
		show,
		published: () => client.invalidateQueries({ queryKey: keys.documents.one(kind, id) }),
		settingsSaved(answer: Versioned<Saved>) {
			show(answer);
			void client.invalidateQueries({ queryKey: keys.documents.list(kind) });
		},
	};
}

export function useVersions(documents: DocumentApi, id: string) {
	return useQuery({ queryKey: keys.documents.versions(documents.kind, id), queryFn: () => documents.versions(id) });
}

/** The definition of the version new runs start with (none while nothing is published). */
export function usePublishedDefinition(documents: DocumentApi, id: string, version: number | null) {
	return useQuery({
		queryKey: keys.documents.version(documents.kind, id, version),
		queryFn: () => documents.version(id, version as number),
		enabled: version !== null,
	});
}

/**
 * Resumes a scenario flood protection paused. The resume is the builder's own write: its version is pinned,
 * so a draft saved after it is saved over it, not refused as stale; the list and the open scenario learn it.
 */
export function useResumeScenario(id: string) {
	const client = useQueryClient();
	return async () => {
		const resumed = await okVersioned(api.POST('/v3/scenarios/{id}/resume', { params: { path: { id } } }));
		pinVersion(id, resumed.etag);
		client.setQueryData(keys.documents.one('scenario', id), resumed);
		await client.invalidateQueries({ queryKey: keys.documents.list('scenario') });
	};
}

/** A scenario's latest runs (30). */
export function useScenarioRuns(scenarioId: string) {
	return useQuery({
		queryKey: keys.documents.runs(scenarioId),
		queryFn: () =>
			ok(api.GET('/v3/scenarios/{id}/runs', { params: { path: { id: scenarioId }, query: { limit: 30 } } })),
	});
}

/** A conversation's bot runs read once, for the builder to replay one (not cached: it wants them as they are now). */
export const conversationBotRuns = (conversationId: string) =>
	ok(api.GET('/v3/conversations/{id}/bot-runs', { params: { path: { id: conversationId } } }));

/** One of a scenario's runs, as it is now. */
export const scenarioRun = (scenarioId: string, runId: string) =>
	ok(api.GET('/v3/scenarios/{id}/runs/{runId}', { params: { path: { id: scenarioId, runId } } }));

/** The workspace's automation settings (the scenarios' flood limit). */
export function useAutomationSettings() {
	return useQuery({ queryKey: keys.automationSettings, queryFn: () => ok(api.GET('/v3/automation-settings')) });
}

/** Saves the flood limit; the answer is the settings as saved. */
export function useSaveFloodLimit() {
	const client = useQueryClient();
	return async (scenarioRunsPerMinute: number) => {
		const answer = await ok(api.PATCH('/v3/automation-settings', { body: { scenarioRunsPerMinute } }));
		client.setQueryData(keys.automationSettings, answer);
	};
}

/** What a bot would do with a draft definition: the API's simulator, nothing sent or stored. */
export const simulateBot = (definition: Definition, rest: Omit<SimulateBody, 'definition'>) =>
	ok(api.POST('/v3/bots/simulate', { body: { definition: definition as never, ...rest } }));

/** A scenario's draft run once on a sample payload, nothing sent or stored. */
export const testScenario = (definition: Definition, input: Record<string, unknown>) =>
	ok(api.POST('/v3/scenarios/test', { body: { definition: definition as never, input } }));

/** An Integration step's call made once, with sample variables: its answer and what it would set. */
export const testIntegration = (step: Record<string, unknown>, variables: Record<string, unknown>) =>
	ok(api.POST('/v3/bots/test-integration', { body: { step: step as never, variables } }));

/** A template rendered with sample values; the last rendering stays while the next loads. */
export function useTemplatePreview(template: string, samples: Omit<PreviewBody, 'template'>) {
	return useQuery({
		queryKey: keys.templatePreview(template, samples),
		queryFn: async () => (await ok(api.POST('/v3/templates/preview', { body: { template, ...samples } }))).text,
		placeholderData: keepPreviousData,
		staleTime: 60_000,
	});
}
