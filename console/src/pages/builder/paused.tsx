/**
 * A scenario flood protection paused (src/domain/automation/scenarios/flood.ts), as the list and the builder's settings
 * show it: when and at what limit, and Resume (`POST /v3/scenarios/{id}/resume`), which enables it again.
 */
import { useQueryClient } from '@tanstack/react-query';
import { api, okVersioned, type Schemas } from '../../api/client';
import { t, when } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { pinVersion } from './documents';

export type Pause = NonNullable<Schemas['ScenarioPause']>;

/** Resume, with the error of a refused resume beside it; the list and the open scenario learn the answer. */
function ResumeButton({ id, name }: { id: string; name?: string }) {
	const client = useQueryClient();
	const resume = useSubmit(async () => {
		const resumed = await okVersioned(api.POST('/v3/scenarios/{id}/resume', { params: { path: { id } } }));
		// The resume is the builder's own write: a draft saved after it is saved over it, not refused as stale.
		pinVersion(id, resumed.etag);
		client.setQueryData(['scenario', id], resumed);
		await client.invalidateQueries({ queryKey: ['scenario', 'list'] });
	});
	return (
		<>
			<button
				type="button"
				disabled={resume.busy}
				aria-label={name ? t('flood.resumeName', { name }) : undefined}
				onClick={() => resume.submit()}
			>
				{t('flood.resume')}
			</button>
			{resume.error !== null && <Problem error={resume.error} />}
		</>
	);
}

/** A paused scenario's row in the list: the mark, since when and why, and Resume. */
export function PausedMark({ id, name, paused }: { id: string; name: string; paused: Pause }) {
	return (
		<>
			<span class="badge paused">{t('flood.paused')}</span>
			<span class="muted">{t('flood.pausedShort', { when: when(paused.at), n: paused.runsPerMinute })}</span>
			<ResumeButton id={id} name={name} />
		</>
	);
}

/** Above a paused scenario's settings: what happened and Resume. */
export function PausedBox({ id, paused }: { id: string; paused: Pause }) {
	return (
		<section class="paused-box" aria-labelledby="paused-box-title">
			<h3 id="paused-box-title">{t('flood.pausedTitle')}</h3>
			<p>{t('flood.pausedWhy', { when: when(paused.at), n: paused.runsPerMinute })}</p>
			<ResumeButton id={id} />
		</section>
	);
}
