/**
 * Real runs on the canvas: a conversation's bot run (opened from the conversation, `?conversation=&run=`) or
 * one of a scenario's runs (picked in the Runs panel), drawn over the version the run kept to, with its
 * status, its step log and its variables beside it. Viewing a run changes nothing; "Back to the draft"
 * returns to editing.
 */
import { conversationBotRuns, scenarioRun, useScenarioRuns } from '../../data/builder';
import type { DocumentApi } from '../../data/documents';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';
import type { Definition } from './schema';
import type { LogEntry } from './trace';

export interface RunView {
	runId: string;
	version: number;
	status: string;
	reason: string | null;
	startedAt: string;
	waitingAt: string | null;
	log: Array<LogEntry & { at?: string }>;
	variables: Record<string, unknown>;
	definition: Definition;
}

/** A conversation's bot run with the definition of the version it ran. */
export async function loadBotRun(
	documents: DocumentApi,
	botId: string,
	conversationId: string,
	runId: string,
): Promise<RunView> {
	const runs = await conversationBotRuns(conversationId);
	const run = runs.data.find((r) => r.id === runId && r.bot.id === botId);
	if (!run) throw new Error(t('builder.runMissing'));
	return {
		runId: run.id,
		version: run.bot.version,
		status: run.status,
		reason: run.reason,
		startedAt: run.startedAt,
		waitingAt: run.waitingAt,
		log: run.log as RunView['log'],
		variables: run.variables,
		definition: await documents.version(botId, run.bot.version),
	};
}

/** One of a scenario's runs with the definition of the version it ran. */
export async function loadScenarioRun(documents: DocumentApi, scenarioId: string, runId: string): Promise<RunView> {
	const run = await scenarioRun(scenarioId, runId);
	return {
		runId: run.id,
		version: run.version,
		status: run.status,
		reason: run.error,
		startedAt: run.createdAt,
		waitingAt: run.waitingAt,
		log: run.log as RunView['log'],
		variables: run.variables,
		definition: await documents.version(scenarioId, run.version),
	};
}

/** A scenario's latest runs, to open one on the canvas. */
export function ScenarioRuns(props: { scenarioId: string; onOpen: (runId: string) => void }) {
	const runs = useScenarioRuns(props.scenarioId);
	return (
		<section class="runs-panel" aria-labelledby="runs-title">
			<h2 id="runs-title">{t('builder.runs')}</h2>
			{runs.error && <Problem error={runs.error} retry={() => runs.refetch()} />}
			{runs.data?.data.length === 0 && <p class="muted">{t('builder.noRuns')}</p>}
			<ol class="version-list">
				{runs.data?.data.map((run) => (
					<li key={run.id}>
						<button type="button" class="link-button" onClick={() => props.onOpen(run.id)}>
							{when(run.createdAt)} · {t(`builder.sim.${run.status}` as 'builder.sim.finished')}
						</button>
						<span class="muted"> v{run.version}</span>
						{run.error && <div class="field-problem">{run.error}</div>}
					</li>
				))}
			</ol>
		</section>
	);
}

/** A log entry's input or output as text: a typed answer as is, a file or a record as JSON. */
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** What a run did, beside the canvas that draws its path. */
export function RunDetails({ run, onClose }: { run: RunView; onClose: () => void }) {
	return (
		<section class="run-details" aria-labelledby="run-title">
			<h2 id="run-title">{t('builder.runOf', { n: run.version })}</h2>
			<p class="sim-status" role="status">
				{t(`builder.sim.${run.status}` as 'builder.sim.finished')}
				{run.reason ? ` — ${run.reason}` : ''}
			</p>
			<p class="muted">{when(run.startedAt)}</p>
			<button type="button" onClick={onClose}>
				{t('builder.backToDraft')}
			</button>
			<h3>{t('builder.stepLog')}</h3>
			<ol class="run-log">
				{run.log.map((entry, i) => (
					<li key={`${entry.stepId}-${i}`} class={entry.error ? 'field-problem' : undefined}>
						<code>{entry.stepId}</code> {entry.error ?? shown(entry.input ?? entry.output ?? '')}
					</li>
				))}
			</ol>
			<details>
				<summary>{t('builder.variables')}</summary>
				<pre>{JSON.stringify(run.variables, null, 2)}</pre>
			</details>
		</section>
	);
}
