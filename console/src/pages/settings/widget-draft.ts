import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { useSubmit } from '../../ui/hooks';

export type WidgetSettings = Schemas['WidgetSettings'];
export type WidgetSettingsUpdate = Schemas['WidgetSettingsUpdate'];

/** The saved widget settings (shared by Settings › Widget and Business hours). */
export function useWidgetSettings() {
	return useQuery({ queryKey: ['widget-settings'], queryFn: () => ok(api.GET('/v3/widget/settings')) });
}

/** What the widget shows now and the snippet to paste. */
export function useWidgetInfo() {
	return useQuery({ queryKey: ['widget-info'], queryFn: () => ok(api.GET('/v3/widget/info')) });
}

/**
 * An edited copy of the saved settings: `draft` (null until they are read), `change` a part of it, `dirty`
 * while it differs from what is saved in the fields this page owns (`owned`: what it sends with PUT, which
 * merges it over the rest), `save` and `discard`. Save sends only the settings this copy changed since the edit
 * began, so a setting another admin saved meanwhile is not put back; an error reads the settings again.
 */
export function useWidgetDraft(owned: (settings: WidgetSettings) => WidgetSettingsUpdate) {
	const changedSince = (update: WidgetSettingsUpdate, base: WidgetSettings | null): WidgetSettingsUpdate => {
		if (!base) return update;
		const before = owned(base) as Record<string, unknown>;
		return Object.fromEntries(
			Object.entries(update).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key])),
		) as WidgetSettingsUpdate;
	};
	const client = useQueryClient();
	const saved = useWidgetSettings();
	const [edited, setEdited] = useState<WidgetSettings | null>(null);
	// The saved settings the edit started from: what the edit changed is measured against them, not the latest.
	const [startedFrom, setStartedFrom] = useState<WidgetSettings | null>(null);
	const [justSaved, setJustSaved] = useState(false);
	const draft = edited ?? saved.data ?? null;
	const dirty =
		edited !== null && saved.data !== undefined && JSON.stringify(owned(edited)) !== JSON.stringify(owned(saved.data));
	const change = (update: (current: WidgetSettings) => WidgetSettings) => {
		setJustSaved(false);
		if (edited === null && saved.data) setStartedFrom(saved.data);
		setEdited((current) => {
			const base = current ?? saved.data;
			return base ? update(base) : current;
		});
	};
	const { busy, error, submit } = useSubmit(async () => {
		if (!edited) return;
		try {
			const answer = await ok(api.PUT('/v3/widget/settings', { body: changedSince(owned(edited), startedFrom) }));
			client.setQueryData(['widget-settings'], answer);
			setEdited(null);
			setStartedFrom(null);
			setJustSaved(true);
			void client.invalidateQueries({ queryKey: ['widget-info'] });
		} catch (caught) {
			void saved.refetch();
			throw caught;
		}
	});
	const discard = () => {
		setEdited(null);
		setStartedFrom(null);
	};
	return { saved, draft, change, dirty, busy, error, save: submit, discard, justSaved };
}
