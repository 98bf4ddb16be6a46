/**
 * The widget's settings (Settings › Widget and Business hours), what it shows now, its logo, its identity
 * secret, and the contact fields its form may ask for. The settings are kept with their version (ETag): every
 * write puts its answer in the cache so, and the next save sends that version back.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ifMatch, ok, okVersioned, type Schemas, type Versioned } from '../api/client';
import { keys } from './keys';

type WidgetSettings = Schemas['WidgetSettings'];

/** The saved settings with their version, read anew (a reload after a refused save). */
export const loadWidgetSettings = () => okVersioned(api.GET('/v3/widget/settings'));

const settingsQuery = queryOptions({ queryKey: keys.widget.settings, queryFn: loadWidgetSettings });

/** The settings alone: the version is no setting, and must not be sent as one. */
const settingsOf = ({ etag: _version, ...settings }: Versioned<WidgetSettings>): WidgetSettings => settings;

/** The saved widget settings (shared by Settings › Widget and Business hours). */
export function useWidgetSettings() {
	return useQuery({ ...settingsQuery, select: settingsOf });
}

/** What the widget shows now and the snippet to paste. */
export function useWidgetInfo() {
	return useQuery({ queryKey: keys.widget.info, queryFn: () => ok(api.GET('/v3/widget/info')) });
}

/**
 * The settings cache: `show` puts settings written or read anew there (and what the widget shows changes with
 * them), `savedVersion` is the version of those cached.
 */
export function useWidgetSettingsCache() {
	const client = useQueryClient();
	return {
		show(settings: Versioned<WidgetSettings>, written = true) {
			client.setQueryData(settingsQuery.queryKey, settings);
			if (written) void client.invalidateQueries({ queryKey: keys.widget.info });
		},
		savedVersion: () => client.getQueryData(settingsQuery.queryKey)?.etag ?? null,
	};
}

/** Saves the settings `body` changed over the version `etag`; the answer becomes the saved settings. */
export function useSaveWidgetSettings() {
	const cache = useWidgetSettingsCache();
	return async (body: Schemas['WidgetSettingsUpdate'], etag: string | null) => {
		const answer = await okVersioned(api.PUT('/v3/widget/settings', { body, ...ifMatch(etag) }));
		cache.show(answer);
		return answer;
	};
}

/** Uploads the logo (the file's own bytes and type) or removes it; each answers with the settings as now. */
export function useWidgetLogo() {
	const cache = useWidgetSettingsCache();
	const written = (answer: Versioned<WidgetSettings>) => {
		cache.show(answer);
		return answer;
	};
	return {
		upload: async (file: File) =>
			written(
				await okVersioned(
					api.PUT('/v3/widget/logo', {
						body: file as unknown as string,
						bodySerializer: (body: unknown) => body as BodyInit,
						headers: { 'Content-Type': file.type || 'application/octet-stream' },
					}),
				),
			),
		remove: async () => written(await okVersioned(api.DELETE('/v3/widget/logo'))),
	};
}

/** Whether identity verification is on and the version of its secret (the secret itself is never read back). */
export function useIdentityVerification() {
	return useQuery({ queryKey: keys.widget.identity, queryFn: () => ok(api.GET('/v3/widget/identity-secret')) });
}

/** A new identity secret (verification on; the old one stops at once), shown once to `show`. */
export function useGenerateIdentitySecret(show: (answer: Schemas['IdentitySecret']) => void) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: () => ok(api.POST('/v3/widget/identity-secret')),
		onSuccess: (answer) => {
			client.setQueryData(keys.widget.identity, { enabled: true, version: answer.version });
			show(answer);
		},
	});
}

/** Turns identity verification off. */
export function useDisableIdentitySecret(done: () => void) {
	const client = useQueryClient();
	return useMutation({
		mutationFn: () => ok(api.DELETE('/v3/widget/identity-secret')),
		onSuccess: () => {
			client.setQueryData(keys.widget.identity, { enabled: false, version: null });
			done();
		},
	});
}

/** The custom fields of contacts, which the widget's form may ask for. */
export function useContactFieldDefinitions() {
	return useQuery({
		queryKey: keys.customFields('contact'),
		queryFn: () => ok(api.GET('/v3/custom-fields', { params: { query: { entity: 'contact', limit: 100 } } })),
	});
}
