/**
 * A document's versions: which one new runs start with, what the draft changes from the published one (steps
 * added, removed, and the fields changed in the others), rolling back (an earlier version published again;
 * the draft untouched), and opening a version on the canvas to start the draft again from it.
 */
import { useState } from 'preact/hooks';
import { useDocumentCache, usePublishedDefinition, useVersions } from '../../data/builder';
import type { DocumentApi } from '../../data/documents';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';
import type { Definition, Step } from './schema';

export interface StepChange {
	id: string;
	change: 'added' | 'removed' | 'changed';
	fields: string[];
}

/** What `draft` changes from `base`, step by step (and the start). */
export function compare(base: Definition, draft: Definition): { start: boolean; steps: StepChange[] } {
	const before = new Map(base.steps.map((s) => [s.id, s]));
	const after = new Map(draft.steps.map((s) => [s.id, s]));
	const steps: StepChange[] = [];
	for (const step of draft.steps) {
		const old = before.get(step.id);
		if (!old) steps.push({ id: step.id, change: 'added', fields: [] });
		else {
			const fields = changedFields(old, step);
			if (fields.length > 0) steps.push({ id: step.id, change: 'changed', fields });
		}
	}
	for (const step of base.steps) if (!after.has(step.id)) steps.push({ id: step.id, change: 'removed', fields: [] });
	return { start: base.start !== draft.start, steps };
}

function changedFields(a: Step, b: Step): string[] {
	const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
	return [...keys].filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
}

export function VersionsPanel(props: {
	documents: DocumentApi;
	id: string;
	draft: Definition;
	publishedVersion: number | null;
	onOpen: (definition: Definition) => void;
}) {
	const { documents, id } = props;
	const cache = useDocumentCache(documents.kind, id);
	const versions = useVersions(documents, id);
	const published = usePublishedDefinition(documents, id, props.publishedVersion);
	const [error, setError] = useState<unknown>(null);
	const act = async (run: () => Promise<unknown>) => {
		setError(null);
		try {
			await run();
			await cache.published();
		} catch (caught) {
			setError(caught);
		}
	};
	const diff = published.data ? compare(published.data, props.draft) : null;
	return (
		<section class="versions-panel" aria-labelledby="versions-title">
			<h2 id="versions-title">{t('builder.versions')}</h2>
			{error !== null && <Problem error={error} />}
			<h3>{t('builder.compareTitle')}</h3>
			{props.publishedVersion === null && <p class="muted">{t('builder.neverPublished')}</p>}
			{diff && diff.steps.length === 0 && !diff.start && <p class="muted">{t('builder.sameAsPublished')}</p>}
			{diff && (diff.steps.length > 0 || diff.start) && (
				<ul class="diff" aria-label={t('builder.compareTitle')}>
					{diff.start && <li class="diff-changed">{t('builder.startChanged')}</li>}
					{diff.steps.map((change) => (
						<li key={change.id} class={`diff-${change.change}`}>
							<code>{change.id}</code> {t(`builder.diff.${change.change}`)}
							{change.fields.length > 0 && `: ${change.fields.join(', ')}`}
						</li>
					))}
				</ul>
			)}
			<h3>{t('builder.history')}</h3>
			{versions.error && <Problem error={versions.error} retry={() => versions.refetch()} />}
			<ol class="version-list">
				{versions.data?.map((v) => (
					<li key={v.version}>
						<strong>v{v.version}</strong> <span class="muted">{when(v.createdAt)}</span>
						{v.published && <span class="badge">{t('builder.live')}</span>}
						<div class="version-actions">
							<button
								type="button"
								onClick={() => act(async () => props.onOpen(await documents.version(id, v.version)))}
							>
								{t('builder.openVersion')}
							</button>
							{!v.published && (
								<button type="button" onClick={() => act(() => documents.rollback(id, v.version))}>
									{t('builder.rollback', { n: v.version })}
								</button>
							)}
						</div>
					</li>
				))}
			</ol>
		</section>
	);
}
