/**
 * A scenario flood protection paused (src/domain/automation/scenarios/flood.ts), as the list and the builder's settings
 * show it: when and at what limit, and Resume (`POST /v3/scenarios/{id}/resume`), which enables it again.
 */
import type { Schemas } from '../../api/client';
import { useResumeScenario } from '../../data/builder';
import { t, when } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';

export type Pause = NonNullable<Schemas['ScenarioPause']>;

/** Resume, with the error of a refused resume beside it; the list and the open scenario learn the answer. */
function ResumeButton({ id, name }: { id: string; name?: string }) {
	const resume = useSubmit(useResumeScenario(id));
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
