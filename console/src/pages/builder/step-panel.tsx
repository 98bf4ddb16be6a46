/**
 * The selected step's form beside the canvas: its id and title, every field of its type (drawn from the API's
 * schema), its links as pickers, the problems the API named for it, and, for a call to another system, a
 * test of the call as it stands.
 */
import { useRef, useState } from 'preact/hooks';
import { testIntegration } from '../../data/builder';
import { useDirectory, useFunnels } from '../../data/workspace';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { flowFacts } from './condition-field';
import { dealPickers, settleStage } from './deal-pickers';
import { type Definition, type DocumentKind, type Step, stepType, typeLabel } from './schema';
import type { FormContext } from './schema-fields';
import { ObjectFields } from './schema-form';

export function StepPanel(props: {
	kind: DocumentKind;
	definition: Definition;
	step: Step;
	problems: Map<string, string>;
	variables: string[];
	onChange: (step: Step) => void;
	onRename: (to: string) => void;
	onDelete: () => void;
	onMakeStart: () => void;
}) {
	const { step, kind } = props;
	const schema = stepType(kind, step.type)?.schema ?? {};
	const directory = useDirectory();
	const funnels = useFunnels().data ?? [];
	const [id, setId] = useState(step.id);
	const problemOf = (candidate: string) =>
		candidate !== step.id && props.definition.steps.some((s) => s.id === candidate)
			? t('builder.idTaken')
			: /^[A-Za-z0-9_-]{1,40}$/.test(candidate)
				? null
				: t('builder.idPattern');
	const renameProblem = problemOf(id);
	// Read from the field itself: a blur may come before the render that saw the last key.
	const commit = (candidate: string) => {
		if (candidate !== step.id && !problemOf(candidate)) props.onRename(candidate);
	};
	const operators = (directory.data?.operators ?? []).map((o) => ({ value: o.id, label: o.name }));
	const ctx: FormContext = {
		stepIds: props.definition.steps.map((s) => s.id).filter((other) => other !== step.id),
		variables: props.variables,
		problems: props.problems,
		idPrefix: `step-${step.id}`,
		options: {
			operatorId: operators,
			// A notify step's operators: a box per member.
			operatorIds: operators,
			groupId: (directory.data?.groups ?? []).map((g) => ({ value: g.id, label: g.name })),
			...dealPickers(step, funnels),
		},
		// A custom validation judges the answer as it comes: it reads the answer and the variables only.
		facts: (path) =>
			flowFacts(
				kind === 'scenario' ? 'scenario' : path[0] === 'validation' ? 'answer' : 'bot',
				props.variables,
				directory.data,
			),
	};
	const stepProblem = props.problems.get('');
	return (
		<section class="step-panel" aria-labelledby="step-panel-title">
			<h2 id="step-panel-title">{typeLabel(kind, step.type)}</h2>
			<p class="muted">{stepType(kind, step.type)?.description}</p>
			{stepProblem && (
				<p class="field-problem" role="alert">
					{stepProblem}
				</p>
			)}
			<div class="schema-field">
				<label for="step-id">{t('builder.stepId')}</label>
				<input
					id="step-id"
					value={id}
					onInput={(e) => setId(e.currentTarget.value)}
					onBlur={(e) => commit(e.currentTarget.value)}
					onKeyDown={(e) => {
						if (e.key === 'Enter') commit(e.currentTarget.value);
					}}
					aria-invalid={renameProblem ? true : undefined}
				/>
				{renameProblem && <p class="field-problem">{renameProblem}</p>}
				{props.problems.get('id') && <p class="field-problem">{props.problems.get('id')}</p>}
			</div>
			<ObjectFields
				schema={schema}
				value={step}
				onChange={(value) => props.onChange(settleStage(step, value as Step, funnels))}
				path={[]}
				ctx={ctx}
				skip={['id', 'type']}
			/>
			{kind === 'bot' && step.type === 'integration' && <IntegrationTest step={step} />}
			<div class="panel-actions">
				<button type="button" onClick={props.onMakeStart} disabled={props.definition.start === step.id}>
					{props.definition.start === step.id ? t('builder.isStart') : t('builder.makeStart')}
				</button>
				<button type="button" class="danger" onClick={props.onDelete}>
					{t('builder.deleteStep')}
				</button>
			</div>
		</section>
	);
}

/**
 * Keys for the step forms that stay the same across a rename: the id is typed in the form and the rename lands
 * as the person moves on (on blur), so a form drawn anew under the new id would take the focus from the field
 * they moved to, and their next keys with it.
 */
export function useFormKeys() {
	const forms = useRef({ keys: new Map<string, number>(), count: 0 });
	const of = (stepId: string): number => {
		const { keys } = forms.current;
		if (!keys.has(stepId)) keys.set(stepId, ++forms.current.count);
		return keys.get(stepId) as number;
	};
	const renamed = (from: string, to: string) => {
		forms.current.keys.set(to, of(from));
		forms.current.keys.delete(from);
	};
	return { of, renamed };
}

/** The test mode of an Integration step: the call made once, its answer and the variables it would set. */
function IntegrationTest({ step }: { step: Step }) {
	const [sample, setSample] = useState('{}');
	const [result, setResult] = useState<unknown>(null);
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const run = async () => {
		setBusy(true);
		setError(null);
		try {
			const variables = JSON.parse(sample || '{}') as Record<string, unknown>;
			const { id: _id, title: _title, next: _next, onError: _onError, ...request } = step;
			setResult(await testIntegration(request, variables));
		} catch (caught) {
			setError(caught);
		} finally {
			setBusy(false);
		}
	};
	return (
		<details class="integration-test">
			<summary>{t('builder.testCall')}</summary>
			<label>
				{t('builder.sampleVariables')}
				<textarea rows={2} value={sample} onInput={(e) => setSample(e.currentTarget.value)} />
			</label>
			<button type="button" onClick={run} disabled={busy}>
				{t('builder.testCall')}
			</button>
			{error !== null && <Problem error={error} />}
			{result !== null && <pre class="test-result">{JSON.stringify(result, null, 2)}</pre>}
		</details>
	);
}
