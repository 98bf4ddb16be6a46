/**
 * One automation rule as a form: its name, whether it is on and its priority, when it fires (the trigger),
 * if what holds (condition groups), then what it does (ordered actions). Save sends the API's own JSON;
 * a 422's problems show at the fields they name. An existing rule shows its execution log below.
 */
import { useMemo, useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { changedElsewhere, type Schemas, type Versioned } from '../../api/client';
import { loadRule, useCreateRule, useRule, useSaveRule, useShowRule } from '../../data/rules';
import { useDirectory } from '../../data/workspace';
import { t } from '../../i18n';
import { usePinnedVersion } from '../../ui/changed-elsewhere';
import { enterSendsNothing, useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { ActionList, type KeyedAction } from './action-list';
import { ConditionEditor } from './condition-editor';
import { cleanAction, conditionField, type GroupNode, groupOf, newKey, type RuleTrigger } from './draft';
import { ExecutionLog } from './executions';
import { ruleFacts } from './facts';
import { Check, Field, fieldProblems, invalid, type Problems, problemAt, SaveProblem } from './fields';
import { TriggerFields } from './trigger-field';

type Rule = Schemas['AutomationRule'];
type RuleBody = Schemas['NewAutomationRule'];

interface Draft {
	name: string;
	enabled: boolean;
	priority: number;
	trigger: RuleTrigger;
	condition: GroupNode;
	actions: KeyedAction[];
}

function draftOf(rule: Rule | null): Draft {
	return {
		name: rule?.name ?? '',
		enabled: rule?.enabled ?? true,
		priority: rule?.priority ?? 0,
		trigger: rule?.trigger ?? { kind: 'new_contact', windowDays: 30 },
		condition: groupOf(rule?.condition ?? null),
		actions: (rule?.actions ?? [{ type: 'send_message', text: '' }]).map((action) => ({ key: newKey(), action })),
	};
}

/** The JSON the API takes for the form as it is. */
export function bodyOf(draft: Draft): RuleBody {
	return {
		name: draft.name,
		enabled: draft.enabled,
		priority: draft.priority,
		trigger: draft.trigger,
		...conditionField(draft.condition),
		actions: draft.actions.map((a) => cleanAction(a.action)),
	};
}

/** `/rules/new` (nothing yet) or `/rules/:id`. */
export function RuleEditorPage({ id }: { id: string | null }) {
	const rule = useRule(id);
	return (
		<div class="page rules-page">
			<p class="back">
				<Link href="/rules">← {t('rules.title')}</Link>
			</p>
			{id === null && <RuleForm rule={null} />}
			{id !== null && rule.isPending && <p class="muted">{t('common.loading')}</p>}
			{rule.error && <Problem error={rule.error} retry={() => rule.refetch()} />}
			{rule.data && <RuleForm key={rule.data.id} rule={rule.data} />}
			{id !== null && rule.data && <ExecutionLog ruleId={id} />}
		</div>
	);
}

function RuleForm({ rule }: { rule: Versioned<Rule> | null }) {
	const [, navigate] = useLocation();
	const showRule = useShowRule();
	const createRule = useCreateRule();
	const saveRule = useSaveRule(rule?.id ?? '');
	const directory = useDirectory().data;
	const [draft, setDraft] = useState(() => draftOf(rule));
	const [saved, setSaved] = useState(() => (rule ? JSON.stringify(bodyOf(draftOf(rule))) : ''));
	const body = bodyOf(draft);
	const dirty = JSON.stringify(body) !== saved;
	const facts = useMemo(() => ruleFacts(draft.trigger, directory), [draft.trigger, directory]);
	const set = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
	const version = usePinnedVersion(
		rule?.etag,
		() => loadRule(rule?.id ?? ''),
		(fresh) => {
			showRule(fresh);
			setDraft(draftOf(fresh));
			setSaved(JSON.stringify(bodyOf(draftOf(fresh))));
		},
	);
	const save = useSubmit(async () => {
		if (rule === null) {
			const created = await createRule(body);
			navigate(`/rules/${created.id}`, { replace: true });
			return;
		}
		const updated = await saveRule(body, version.etag);
		version.setEtag(updated.etag);
		setSaved(JSON.stringify(body));
	});
	const problems: Problems = fieldProblems(save.error);
	const nameProblem = problemAt(problems, 'name');
	return (
		<form
			class="rule-form"
			noValidate
			onKeyDown={enterSendsNothing}
			onSubmit={(e) => {
				e.preventDefault();
				void save.submit();
			}}
		>
			<h1>{rule ? rule.name : t('rules.new')}</h1>
			<section class="rules-section" aria-labelledby="rule-basics">
				<h2 id="rule-basics">{t('rules.basics')}</h2>
				<div class="grid-basics">
					<Field id="rule-name" label={t('rules.name')} problem={nameProblem}>
						<input
							id="rule-name"
							value={draft.name}
							maxLength={100}
							placeholder={t('rules.namePlaceholder')}
							{...invalid('rule-name', nameProblem)}
							onInput={(e) => set({ name: e.currentTarget.value })}
						/>
					</Field>
					<Field
						id="rule-priority"
						label={t('rules.priority')}
						problem={problemAt(problems, 'priority')}
						hint={t('rules.priorityHint')}
					>
						<input
							id="rule-priority"
							type="number"
							min={-1000}
							max={1000}
							value={draft.priority}
							{...invalid('rule-priority', problemAt(problems, 'priority'))}
							onInput={(e) => set({ priority: Number(e.currentTarget.value) })}
						/>
					</Field>
					<Check
						id="rule-enabled"
						label={t('rules.enabled')}
						checked={draft.enabled}
						onChange={(enabled) => set({ enabled })}
					/>
				</div>
			</section>
			<section class="rules-section" aria-labelledby="rule-when">
				<h2 id="rule-when">{t('rules.when')}</h2>
				<TriggerFields trigger={draft.trigger} problems={problems} onChange={(trigger) => set({ trigger })} />
			</section>
			<section class="rules-section" aria-labelledby="rule-if">
				<h2 id="rule-if">{t('rules.if')}</h2>
				<p class="muted intro">{t('rules.if.intro')}</p>
				<ConditionEditor
					id="cond"
					group={draft.condition}
					facts={facts}
					problems={problems}
					onChange={(condition) => set({ condition })}
				/>
			</section>
			<section class="rules-section" aria-labelledby="rule-then">
				<h2 id="rule-then">{t('rules.then')}</h2>
				<ActionList
					trigger={draft.trigger.kind}
					actions={draft.actions}
					problems={problems}
					onChange={(actions) => set({ actions })}
				/>
			</section>
			<div class="save-bar">
				{changedElsewhere(save.error) ? (
					version.notice(save.error)
				) : (
					<SaveProblem error={save.error} problems={problems} />
				)}
				<span class="muted" role="status">
					{dirty && rule ? t('rules.unsaved') : ''}
				</span>
				{rule && (
					<button type="button" disabled={!dirty || save.busy} onClick={() => setDraft(draftOf(rule))}>
						{t('rules.discard')}
					</button>
				)}
				<button type="submit" class="primary" disabled={save.busy || (rule !== null && !dirty)}>
					{save.busy ? t('rules.saving') : rule ? t('rules.save') : t('rules.create')}
				</button>
			</div>
		</form>
	);
}
