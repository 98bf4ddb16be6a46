/**
 * Trying a document before it is published, on the canvas as it stands (saved or not): a bot in a chat beside
 * the canvas (`POST /v3/bots/simulate`, replayed from the start with every answer so far), a scenario with a
 * sample payload (`POST /v3/scenarios/test`). Nothing in the workspace changes; the path taken is drawn on
 * the canvas through `onTrace`.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api/client';
import { simulateBot, testScenario } from '../../data/builder';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import type { Definition } from './schema';
import type { LogEntry } from './trace';

interface Line {
	from: 'bot' | 'visitor';
	text?: string;
	buttons?: string[];
	media?: Array<{ kind: string; url: string; name?: string }>;
	/** A pause (a Delay, or "typing…" before a message): said in words, no bubble. */
	waited?: number;
}

interface Simulation {
	transcript: Line[];
	log: LogEntry[];
	status: string;
	waitingAt: string | null;
	reason: string | null;
	variables: Record<string, unknown>;
}

export function BotSimulator(props: {
	definition: Definition;
	onTrace: (log: LogEntry[], waitingAt: string | null) => void;
	onRefused: (error: unknown) => void;
}) {
	const [inputs, setInputs] = useState<string[]>([]);
	const [contact, setContact] = useState({ name: 'Ana Souza', email: 'ana@example.com' });
	const [open, setOpen] = useState(true);
	const [result, setResult] = useState<Simulation | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [draft, setDraft] = useState('');
	const transcript = useRef<HTMLOListElement>(null);
	const { definition, onTrace, onRefused } = props;
	useEffect(() => {
		let current = true;
		// Replayed a moment after the last edit or answer, not on every key typed in a form.
		const timer = setTimeout(() => {
			simulateBot(definition, {
				inputs,
				contact: { name: contact.name || null, email: contact.email || null, phone: null, customFields: {} },
				facts: { businessHours: { open }, agents: { available: open ? 1 : 0 } },
			}).then(
				(answer) => {
					if (!current) return;
					const simulation = answer as unknown as Simulation;
					setResult(simulation);
					setError(null);
					onTrace(simulation.log, simulation.waitingAt);
				},
				(caught) => {
					if (!current) return;
					setError(caught);
					if (caught instanceof ApiError && caught.status === 422) onRefused(caught);
				},
			);
		}, 250);
		return () => {
			current = false;
			clearTimeout(timer);
		};
	}, [definition, inputs, contact, open, onTrace, onRefused]);
	useEffect(() => {
		transcript.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
	}, [result]);
	const say = (text: string) => {
		if (text.trim() === '') return;
		setInputs([...inputs, text]);
		setDraft('');
	};
	const last = result?.transcript[result.transcript.length - 1];
	const waiting = result?.status === 'waiting' || result?.status === 'running';
	return (
		<section class="simulator" aria-labelledby="simulator-title">
			<h2 id="simulator-title">{t('builder.simulate')}</h2>
			<details class="simulator-context">
				<summary>{t('builder.sampleContext')}</summary>
				<label>
					{t('builder.sampleName')}
					<input value={contact.name} onChange={(e) => setContact({ ...contact, name: e.currentTarget.value })} />
				</label>
				<label>
					{t('builder.sampleEmail')}
					<input value={contact.email} onChange={(e) => setContact({ ...contact, email: e.currentTarget.value })} />
				</label>
				<label class="inline">
					<input type="checkbox" checked={open} onChange={(e) => setOpen(e.currentTarget.checked)} />
					{t('builder.sampleOpen')}
				</label>
			</details>
			<ol class="sim-transcript" ref={transcript} aria-live="polite" aria-label={t('builder.transcript')}>
				{result?.transcript.map((line, i) =>
					line.waited !== undefined ? (
						<li key={i} class="sim-wait">
							{t('builder.simWaited', { n: line.waited })}
						</li>
					) : (
						<li key={i} class={`sim-line from-${line.from}`}>
							{line.text}
							{line.media?.map((m) => (
								<span key={m.url} class="sim-media">
									{m.kind}: {m.name ?? m.url}
								</span>
							))}
						</li>
					),
				)}
			</ol>
			{error !== null && <Problem error={error} />}
			{result && (
				<p class="sim-status" role="status">
					{t(`builder.sim.${result.status}` as 'builder.sim.finished')}
					{result.reason ? ` — ${result.reason}` : ''}
				</p>
			)}
			{last?.from === 'bot' && last.buttons && waiting && (
				<div class="sim-choices">
					{last.buttons.map((label) => (
						<button key={label} type="button" onClick={() => say(label)}>
							{label}
						</button>
					))}
				</div>
			)}
			<form
				class="sim-composer"
				onSubmit={(e) => {
					e.preventDefault();
					say(draft);
				}}
			>
				<input
					aria-label={t('builder.simAnswer')}
					value={draft}
					disabled={!waiting}
					onInput={(e) => setDraft(e.currentTarget.value)}
				/>
				<button type="submit" disabled={!waiting}>
					{t('builder.simSend')}
				</button>
				<button type="button" onClick={() => setInputs([])}>
					{t('builder.simRestart')}
				</button>
			</form>
			{result && Object.keys(result.variables).length > 0 && (
				<details>
					<summary>{t('builder.variables')}</summary>
					<pre>{JSON.stringify(result.variables, null, 2)}</pre>
				</details>
			)}
		</section>
	);
}

interface ScenarioTest {
	status: string;
	error: string | null;
	variables: Record<string, unknown>;
	log: LogEntry[];
	actions: Array<{ stepId: string; type: string; step?: unknown }>;
}

export function ScenarioTester(props: {
	definition: Definition;
	onTrace: (log: LogEntry[], waitingAt: string | null) => void;
	onRefused: (error: unknown) => void;
}) {
	const [payload, setPayload] = useState('{\n  "name": "Ana Souza",\n  "email": "ana@example.com"\n}');
	const [result, setResult] = useState<ScenarioTest | null>(null);
	const [error, setError] = useState<unknown>(null);
	const run = async () => {
		setError(null);
		try {
			const input = JSON.parse(payload) as Record<string, unknown>;
			const answer = (await testScenario(props.definition, input)) as unknown as ScenarioTest;
			setResult(answer);
			props.onTrace(answer.log, null);
		} catch (caught) {
			setError(caught instanceof SyntaxError ? new Error(t('builder.payloadNotJson')) : caught);
			if (caught instanceof ApiError && caught.status === 422) props.onRefused(caught);
		}
	};
	return (
		<section class="simulator" aria-labelledby="tester-title">
			<h2 id="tester-title">{t('builder.testRun')}</h2>
			<label>
				{t('builder.samplePayload')}
				<textarea rows={6} value={payload} onInput={(e) => setPayload(e.currentTarget.value)} />
			</label>
			<button type="button" onClick={run}>
				{t('builder.runTest')}
			</button>
			{error !== null && <Problem error={error} />}
			{result && (
				<>
					<p class="sim-status" role="status">
						{t(`builder.sim.${result.status}` as 'builder.sim.finished')}
						{result.error ? ` — ${result.error}` : ''}
					</p>
					<ol class="test-actions" aria-label={t('builder.actionsTaken')}>
						{result.actions.map((action, i) => (
							<li key={i}>
								<code>{action.stepId}</code> {action.type}
							</li>
						))}
					</ol>
					<details>
						<summary>{t('builder.variables')}</summary>
						<pre>{JSON.stringify(result.variables, null, 2)}</pre>
					</details>
				</>
			)}
		</section>
	);
}
