/**
 * The builder of one bot or scenario: the canvas in the middle, the toolbar above it (add a step, undo, redo,
 * tidy up, save, publish) and a panel beside it (the selected step's form, the simulator or test run, the
 * versions). The draft is the API's definition, edited as a whole and saved with one PATCH; the API judges
 * it, and the problems it names land on their node and field.
 */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { Link, useSearch } from 'wouter-preact';
import { changedElsewhere, type Versioned } from '../../api/client';
import { useDocument, useDocumentCache } from '../../data/builder';
import { type DocumentApi, pinVersion, type Saved } from '../../data/documents';
import { useDirectory } from '../../data/workspace';
import { t } from '../../i18n';
import { ChangedElsewhere } from '../../ui/changed-elsewhere';
import { Problem } from '../../ui/problem';
import { Canvas } from './canvas';
import { useDraftProblems } from './draft-problems';
import { connect, layout, links, type Position, reachable, removeStep, renameStep, START } from './graph';
import { useHistory } from './history';
import { loadBotRun, loadScenarioRun, RunDetails, type RunView, ScenarioRuns } from './runs';
import { type Definition, newStep, outlets, type Step } from './schema';
import { SettingsPanel } from './settings-panel';
import { BotSimulator, ScenarioTester } from './simulator';
import { StepPanel, useFormKeys } from './step-panel';
import { type Panel, Toolbar, useEditorKeys, useLeaveWarning } from './toolbar';
import { type LogEntry, NO_TRACE, type Trace, traceOf } from './trace';
import { variablesAt } from './variables';
import { VersionsPanel } from './versions-panel';

const EMPTY: Definition = { start: '', steps: [] };
export function Editor(props: { documents: DocumentApi; id: string }) {
	const { documents, id } = props;
	const kind = documents.kind;
	const cache = useDocumentCache(kind, id);
	const saved = useDocument(documents, id);
	const directory = useDirectory();
	const history = useHistory<Definition>(EMPTY);
	const definition = history.value;
	const [savedJson, setSavedJson] = useState<string | null>(null);
	const [positions, setPositions] = useState<Map<string, Position>>(new Map());
	const [selected, setSelected] = useState<string | null>(null);
	const [reveal, setReveal] = useState<{ id: string; n: number } | null>(null);
	const [fit, setFit] = useState(0);
	const [viewing, setViewing] = useState<RunView | null>(null);
	const [runError, setRunError] = useState<unknown>(null);
	const search = useSearch();
	const openRun = async (load: () => Promise<RunView>) => {
		setRunError(null);
		try {
			const run = await load();
			setViewing(run);
			setPositions(layout(kind, run.definition));
			setFit((n) => n + 1);
		} catch (error) {
			setRunError(error);
		}
	};
	const closeRun = () => {
		setViewing(null);
		setPositions(layout(kind, definition));
		setFit((n) => n + 1);
	};
	// A conversation's bot run, linked from the conversation: `?conversation=…&run=…`.
	useEffect(() => {
		const query = new URLSearchParams(search);
		const conversation = query.get('conversation');
		const run = query.get('run');
		if (kind === 'bot' && conversation && run) void openRun(() => loadBotRun(documents, id, conversation, run));
	}, [search]);
	const runTrace = useMemo(
		() => (viewing ? traceOf(kind, viewing.definition, viewing.log, viewing.waitingAt) : null),
		[kind, viewing],
	);
	const [panel, setPanel] = useState<Panel>('step');
	const { problems, counts: problemCounts, settle, refusedFor, clear: clearProblems } = useDraftProblems();
	const [trace, setTrace] = useState<Trace>(NO_TRACE);
	const [status, setStatus] = useState<{ busy: boolean; message: string | null; error: unknown }>({
		busy: false,
		message: null,
		error: null,
	});

	/** Starts editing a draft as loaded: its history, its layout, and the version its saves are based on. */
	const takeIn = (document: Versioned<Saved>) => {
		history.reset(document.draft);
		setSavedJson(JSON.stringify(document.draft));
		setPositions(layout(kind, document.draft));
		pinVersion(id, document.etag);
	};
	// The draft as loaded is the history's start, laid out afresh (a definition carries no coordinates).
	useEffect(() => {
		if (!saved.data || savedJson !== null) return;
		takeIn(saved.data);
	}, [saved.data]);

	const dirty = savedJson !== null && JSON.stringify(definition) !== savedJson;
	const reached = useMemo(() => reachable(kind, definition), [kind, definition]);

	const update = (change: (current: Definition) => Definition, group?: string) => history.update(change, group);
	// A new step goes under the step it follows (or under everything), moved right until no step is there.
	const place = (stepId: string, near: string | null) => {
		setPositions((current) => {
			const next = new Map(current);
			const anchor = near ? current.get(near) : undefined;
			const lowest = Math.max(0, ...[...current.values()].map((p) => p.y));
			const spot = anchor ? { x: anchor.x, y: anchor.y + 170 } : { x: 40, y: lowest + 170 };
			const taken = (x: number, y: number) =>
				[...current.values()].some((p) => Math.abs(p.x - x) < 250 && Math.abs(p.y - y) < 120);
			while (taken(spot.x, spot.y)) spot.x += 280;
			next.set(stepId, spot);
			return next;
		});
	};
	const addStep = (type: string) => {
		const step = newStep(kind, type, new Set(definition.steps.map((s) => s.id)));
		const from = selected ? definition.steps.find((s) => s.id === selected) : undefined;
		const open = from ? outlets(kind, from).find((o) => !o.target && o.handle === 'next') : undefined;
		update((current) => {
			let next: Definition = { ...current, steps: [...current.steps, step] };
			if (current.steps.length === 0 || !current.start) next = { ...next, start: step.id };
			if (from && open) next = connect(next, from.id, open.handle, step.id);
			return next;
		});
		place(step.id, from?.id ?? null);
		setSelected(step.id);
		setReveal({ id: step.id, n: (reveal?.n ?? 0) + 1 });
		setPanel('step');
		requestAnimationFrame(() =>
			document.querySelector<HTMLElement>('.step-panel textarea, .step-panel input:not(#step-id)')?.focus(),
		);
	};
	const formKeys = useFormKeys();
	const deleteStep = (stepId: string) => {
		update((current) => removeStep(kind, current, stepId));
		if (selected === stepId) setSelected(null);
	};
	const rename = (from: string, to: string) => {
		formKeys.renamed(from, to);
		update((current) => renameStep(kind, current, from, to));
		settle(from, to);
		setPositions((current) => {
			const next = new Map(current);
			const at = current.get(from);
			if (at) next.set(to, at);
			return next;
		});
		setSelected(to);
	};
	const refused = useCallback((error: unknown) => refusedFor(error, definition), [definition]);
	const onTrace = useCallback(
		(log: LogEntry[], waitingAt: string | null) => {
			setTrace(traceOf(kind, definition, log, waitingAt));
			clearProblems();
		},
		[kind, definition],
	);
	/** Reads the document again after a save refused as changed elsewhere: `adopt` its draft, or only its version. */
	const settleConflict = async (adopt: boolean) => {
		const fresh = await documents.load(id);
		cache.show(fresh);
		if (adopt) takeIn(fresh);
		else pinVersion(id, fresh.etag);
		setStatus({ busy: false, message: null, error: null });
	};
	const save = async (): Promise<boolean> => {
		setStatus({ busy: true, message: null, error: null });
		try {
			const answer = await documents.save(id, definition);
			setSavedJson(JSON.stringify(definition));
			clearProblems();
			cache.show(answer);
			setStatus({ busy: false, message: t('builder.saved'), error: null });
			return true;
		} catch (error) {
			refused(error);
			setStatus({ busy: false, message: null, error });
			return false;
		}
	};
	const publish = async () => {
		if (dirty && !(await save())) return;
		setStatus({ busy: true, message: null, error: null });
		try {
			await documents.publish(id);
			await cache.published();
			setStatus({ busy: false, message: t('builder.publishedNow'), error: null });
		} catch (error) {
			setStatus({ busy: false, message: null, error });
		}
	};

	// While a run is looked at, the draft is out of sight: its keys do nothing.
	useEditorKeys({ save: () => void save(), undo: history.undo, redo: history.redo }, viewing === null);
	useLeaveWarning(dirty, t('builder.leaveUnsaved'));

	if (saved.error) return <Problem error={saved.error} retry={() => saved.refetch()} />;
	if (!saved.data || savedJson === null) return <p class="centered muted">{t('common.loading')}</p>;

	const step = selected ? definition.steps.find((s) => s.id === selected) : undefined;
	const dark = matchMedia('(prefers-color-scheme: dark)').matches;
	const unreachable = definition.steps.filter((s) => !reached.has(s.id)).length;
	const dangling = links(kind, definition).filter((link) => link.dangling).length;
	const customFields = (directory.data?.customFields ?? []).filter((f) => f.entity === 'contact').map((f) => f.key);
	return (
		<div class="builder">
			<header class="builder-head">
				<Link href={kind === 'bot' ? '/bots' : '/scenarios'}>
					{kind === 'bot' ? t('builder.bots') : t('builder.scenarios')}
				</Link>
				<h1>{saved.data.name}</h1>
				<span class="muted">
					{saved.data.publishedVersion === null
						? t('builder.notPublished')
						: t('builder.published', { n: saved.data.publishedVersion })}
				</span>
				<span class={`draft-state${dirty ? ' dirty' : ''}`} role="status">
					{dirty ? t('builder.unsaved') : (status.message ?? t('builder.allSaved'))}
				</span>
			</header>
			{viewing && (
				<div class="builder-warnings" role="status">
					<p>{t('builder.viewingRun', { n: viewing.version })}</p>
				</div>
			)}
			<Toolbar
				kind={kind}
				hidden={viewing !== null}
				panel={panel}
				onPanel={(next) => {
					// A simulation's path is drawn while the simulator is open; it says nothing of later edits.
					if (panel === 'simulate') setTrace(NO_TRACE);
					setPanel(panel === next ? 'step' : next);
				}}
				onAdd={addStep}
				history={history}
				onTidy={() => {
					setPositions(layout(kind, definition));
					setFit((n) => n + 1);
				}}
				busy={status.busy}
				dirty={dirty}
				onSave={() => void save()}
				onPublish={() => void publish()}
			/>
			{status.error !== null &&
				(changedElsewhere(status.error) ? (
					<ChangedElsewhere onReload={() => void settleConflict(true)} onKeep={() => void settleConflict(false)} />
				) : (
					<Problem error={status.error} />
				))}
			{(unreachable > 0 || dangling > 0 || problems.document.length > 0) && (
				<div class="builder-warnings" role="status">
					{unreachable > 0 && <p>{t('builder.unreachableCount', { n: unreachable })}</p>}
					{dangling > 0 && <p>{t('builder.danglingCount', { n: dangling })}</p>}
					{problems.document.map((p) => (
						<p key={p} class="field-problem">
							{p}
						</p>
					))}
				</div>
			)}
			<div class="builder-body">
				<section class="builder-canvas" aria-label={t('builder.canvas')}>
					{viewing ? (
						<Canvas
							key={`run-${viewing.runId}`}
							kind={kind}
							definition={viewing.definition}
							positions={positions}
							onMove={(stepId, position) => setPositions((current) => new Map(current).set(stepId, position))}
							selected={null}
							onSelect={() => undefined}
							onConnect={() => undefined}
							onRemove={() => undefined}
							reached={reachable(kind, viewing.definition)}
							problemCounts={new Map()}
							trace={runTrace?.steps ?? NO_TRACE.steps}
							traceEdges={runTrace?.edges ?? NO_TRACE.edges}
							dark={dark}
							reveal={null}
							fit={fit}
							readOnly
						/>
					) : (
						<Canvas
							key="draft"
							kind={kind}
							definition={definition}
							positions={positions}
							onMove={(stepId, position) => setPositions((current) => new Map(current).set(stepId, position))}
							selected={selected}
							onSelect={(stepId) => {
								setSelected(stepId);
								if (stepId) setPanel('step');
							}}
							onConnect={(source, handle, target) => update((current) => connect(current, source, handle, target))}
							onRemove={(stepIds, unlinked) => {
								// One key press, one step of history: the links cut, then the steps removed.
								update((current) => {
									let next = current;
									for (const link of unlinked) next = connect(next, link.source, link.handle, undefined);
									for (const stepId of stepIds) next = removeStep(kind, next, stepId);
									return next;
								});
								if (selected && stepIds.includes(selected)) setSelected(null);
							}}
							reached={reached}
							problemCounts={problemCounts}
							trace={trace.steps}
							traceEdges={trace.edges}
							dark={dark}
							reveal={reveal}
							fit={fit}
						/>
					)}
				</section>
				<aside class="builder-panel">
					{runError !== null && <Problem error={runError} />}
					{viewing && <RunDetails run={viewing} onClose={closeRun} />}
					{!viewing && panel === 'runs' && (
						<ScenarioRuns
							scenarioId={id}
							onOpen={(runId) => void openRun(() => loadScenarioRun(documents, id, runId))}
						/>
					)}
					{!viewing &&
						panel === 'simulate' &&
						(kind === 'bot' ? (
							<BotSimulator definition={definition} onTrace={onTrace} onRefused={refused} />
						) : (
							<ScenarioTester definition={definition} onTrace={onTrace} onRefused={refused} />
						))}
					{!viewing && panel === 'settings' && (
						<SettingsPanel kind={kind} saved={saved.data as unknown as Saved & Record<string, unknown>} />
					)}
					{!viewing && panel === 'versions' && (
						<VersionsPanel
							documents={documents}
							id={id}
							draft={definition}
							publishedVersion={saved.data.publishedVersion}
							onOpen={(opened) => {
								update(() => opened);
								setPositions(layout(kind, opened));
							}}
						/>
					)}
					{!viewing && panel === 'step' && step && (
						<StepPanel
							key={formKeys.of(step.id)}
							kind={kind}
							definition={definition}
							step={step}
							problems={problems.steps.get(step.id) ?? new Map()}
							variables={variablesAt(kind, definition, step.id, customFields)}
							onChange={(changed: Step) => {
								update(
									(current) => ({
										...current,
										steps: current.steps.map((s) => (s.id === step.id ? changed : s)),
									}),
									`form:${step.id}`,
								);
								settle(step.id);
							}}
							onRename={(to) => rename(step.id, to)}
							onDelete={() => deleteStep(step.id)}
							onMakeStart={() => update((current) => connect(current, START, 'start', step.id))}
						/>
					)}
					{!viewing && panel === 'step' && !step && <p class="muted">{t('builder.pickStep')}</p>}
				</aside>
			</div>
		</div>
	);
}
