/**
 * The bots or the scenarios of the workspace: name, whether it is on, the version new runs start with; a new
 * one made from a name (a first step ready to edit), then opened on the canvas.
 */
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { useDocumentList } from '../../data/builder';
import { documentsOf } from '../../data/documents';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';
import { FloodLimit } from './flood-limit';
import { type Pause, PausedMark } from './paused';
import type { DocumentKind } from './schema';

interface Row {
	id: string;
	name: string;
	enabled: boolean;
	publishedVersion: number | null;
	updatedAt: string;
	draft: { steps: unknown[] };
	/** A scenario's, set while flood protection keeps it paused. */
	paused?: Pause | null;
}

export function DocumentList({ kind }: { kind: DocumentKind }) {
	const [, navigate] = useLocation();
	const base = kind === 'bot' ? '/bots' : '/scenarios';
	const list = useDocumentList(kind);
	const rows = list.data as Row[] | undefined;
	const [name, setName] = useState('');
	const [error, setError] = useState<unknown>(null);
	const create = async (event: Event) => {
		event.preventDefault();
		setError(null);
		try {
			const made = await documentsOf(kind).create(name);
			navigate(`${base}/${made.id}`);
		} catch (caught) {
			setError(caught);
		}
	};
	const title = kind === 'bot' ? t('builder.bots') : t('builder.scenarios');
	return (
		<div class="document-list">
			<h1>{title}</h1>
			<p class="muted">{kind === 'bot' ? t('builder.botsIntro') : t('builder.scenariosIntro')}</p>
			<form class="new-document" onSubmit={create}>
				<label for="new-document-name">{kind === 'bot' ? t('builder.newBot') : t('builder.newScenario')}</label>
				<input
					id="new-document-name"
					required
					maxLength={100}
					value={name}
					onInput={(e) => setName(e.currentTarget.value)}
				/>
				<button type="submit">{t('builder.create')}</button>
			</form>
			{error !== null && <Problem error={error} />}
			{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
			{rows?.length === 0 && <p class="muted">{t('builder.none')}</p>}
			<ul class="documents">
				{rows?.map((row) => (
					<li key={row.id}>
						<Link href={`${base}/${row.id}`}>{row.name}</Link>
						<span class="muted">{t('builder.stepCount', { n: row.draft.steps.length })}</span>
						{row.paused ? (
							<PausedMark id={row.id} name={row.name} paused={row.paused} />
						) : (
							<span class={row.enabled ? 'badge' : 'badge off'}>
								{row.enabled ? t('builder.on') : t('builder.off')}
							</span>
						)}
						<span class="muted">
							{row.publishedVersion === null
								? t('builder.notPublished')
								: t('builder.published', { n: row.publishedVersion })}
						</span>
						<span class="muted">{when(row.updatedAt)}</span>
					</li>
				))}
			</ul>
			{kind === 'scenario' && <FloodLimit />}
		</div>
	);
}
