import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import {
	loadWidgetSettings,
	useSaveWidgetSettings,
	useWidgetSettings,
	useWidgetSettingsCache,
} from '../../data/widget';
import { usePinnedVersion } from '../../ui/changed-elsewhere';
import { useSubmit } from '../../ui/hooks';

export type WidgetSettings = Schemas['WidgetSettings'];
export type WidgetSettingsUpdate = Schemas['WidgetSettingsUpdate'];

/**
 * An edited copy of the saved settings: `draft` (null until they are read), `change` a part of it, `dirty`
 * while it differs from what is saved in the fields this page owns (`owned`: what it sends with PUT, which
 * merges it over the rest), `save` and `discard`. Save sends only the settings this copy changed since the edit
 * began, so a setting another admin saved meanwhile is not put back; an error reads the settings again. The save
 * applies only to the version the edit began from (If-Match): over another admin's save since, it is refused
 * with the changed-elsewhere `notice` (Reload drops this edit for theirs; Keep lets the next save go over it).
 */
export function useWidgetDraft(owned: (settings: WidgetSettings) => WidgetSettingsUpdate) {
	const changedSince = (update: WidgetSettingsUpdate, base: WidgetSettings | null): WidgetSettingsUpdate => {
		if (!base) return update;
		const before = owned(base) as Record<string, unknown>;
		return Object.fromEntries(
			Object.entries(update).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key])),
		) as WidgetSettingsUpdate;
	};
	const cache = useWidgetSettingsCache();
	const saveSettings = useSaveWidgetSettings();
	const saved = useWidgetSettings();
	const [edited, setEdited] = useState<WidgetSettings | null>(null);
	// The saved settings the edit started from: what the edit changed is measured against them, not the latest.
	const [startedFrom, setStartedFrom] = useState<WidgetSettings | null>(null);
	const [justSaved, setJustSaved] = useState(false);
	const draft = edited ?? saved.data ?? null;
	const version = usePinnedVersion(null, loadWidgetSettings, (fresh) => {
		cache.show(fresh, false);
		setEdited(null);
		setStartedFrom(null);
	});
	const dirty =
		edited !== null && saved.data !== undefined && JSON.stringify(owned(edited)) !== JSON.stringify(owned(saved.data));
	/** `wrote`: the version a write of this page beside the form (the logo) answered; the edit goes on from it. */
	const change = (update: (current: WidgetSettings) => WidgetSettings, wrote?: string | null) => {
		setJustSaved(false);
		if (edited === null && saved.data) {
			setStartedFrom(saved.data);
			version.setEtag(cache.savedVersion());
		}
		if (wrote !== undefined) version.setEtag(wrote);
		setEdited((current) => {
			const base = current ?? saved.data;
			return base ? update(base) : current;
		});
	};
	const { busy, error, submit } = useSubmit(async () => {
		if (!edited) return;
		try {
			const body = changedSince(owned(edited), startedFrom);
			await saveSettings(body, version.etag);
			setEdited(null);
			setStartedFrom(null);
			setJustSaved(true);
		} catch (caught) {
			void saved.refetch();
			throw caught;
		}
	});
	const discard = () => {
		setEdited(null);
		setStartedFrom(null);
	};
	return { saved, draft, change, dirty, busy, error, notice: version.notice, save: submit, discard, justSaved };
}
