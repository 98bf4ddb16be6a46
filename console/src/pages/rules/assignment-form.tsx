/**
 * One auto-assignment rule as a form: its name, on or off, priority, which conversations (a condition on the
 * channel and the group), the strategy and its options (fallback for "last agent", the group, online only,
 * presence, business hours). Saves the API's JSON; a 422's problems show at their fields.
 */
import { useState } from 'preact/hooks';
import { changedElsewhere, type Schemas, type Versioned } from '../../api/client';
import {
	loadAssignmentRule,
	useAssignmentRule,
	useSaveAssignmentRule,
	useShowAssignmentRule,
} from '../../data/assignment';
import { useDirectory } from '../../data/workspace';
import { t } from '../../i18n';
import { usePinnedVersion } from '../../ui/changed-elsewhere';
import { enterSendsNothing, useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { ConditionEditor } from './condition-editor';
import { conditionField, type GroupNode, groupOf } from './draft';
import { assignmentFacts } from './facts';
import { Check, Field, fieldProblems, invalid, problemAt, SaveProblem } from './fields';

export type AssignmentRule = Schemas['AssignmentRule'];
type Policy = Schemas['AssignmentPolicy'];
type Strategy = Policy['strategy'];
type Fallback = NonNullable<Policy['fallback']>;

export const STRATEGIES: readonly Strategy[] = ['round_robin', 'load_balanced', 'last_agent', 'group_based'];
const FALLBACKS: readonly Fallback[] = ['round_robin', 'load_balanced', 'group_based'];

interface Draft {
	name: string;
	enabled: boolean;
	priority: number;
	condition: GroupNode;
	policy: Policy;
}

function draftOf(rule: AssignmentRule | null, priority: number): Draft {
	return {
		name: rule?.name ?? '',
		enabled: rule?.enabled ?? true,
		priority: rule?.priority ?? priority,
		condition: groupOf(rule?.condition ?? null),
		policy: rule?.policy ?? {
			strategy: 'round_robin',
			groupId: null,
			onlyOnline: true,
			respectStatus: true,
			considerBusinessHours: false,
		},
	};
}

/** The API's JSON for the form: the fallback only where it means something (last agent). */
export function assignmentBody(draft: Draft): Schemas['NewAssignmentRule'] {
	const { fallback, ...policy } = draft.policy;
	return {
		name: draft.name,
		enabled: draft.enabled,
		priority: draft.priority,
		...conditionField(draft.condition),
		policy: policy.strategy === 'last_agent' && fallback ? { ...policy, fallback } : policy,
	};
}

/**
 * An existing rule's form, opened on the rule as it is now: the list it is picked from carries no version of
 * each rule, so the rule is read on its own first, and its save applies to that version only (If-Match).
 */
export function AssignmentEditor({ id, onDone }: { id: string; onDone: () => void }) {
	const rule = useAssignmentRule(id);
	if (rule.error) return <Problem error={rule.error} retry={() => rule.refetch()} />;
	if (!rule.data) return <p class="muted">{t('common.loading')}</p>;
	return <AssignmentForm rule={rule.data} priority={rule.data.priority} onDone={onDone} />;
}

export function AssignmentForm(props: {
	rule: Versioned<AssignmentRule> | null;
	/** The priority a new rule starts with: above the others, so it is tried first. */
	priority: number;
	onDone: () => void;
}) {
	const groups = useDirectory().data?.groups ?? [];
	const showRule = useShowAssignmentRule();
	const saveRule = useSaveAssignmentRule(props.rule?.id ?? null);
	const [draft, setDraft] = useState(() => draftOf(props.rule, props.priority));
	const set = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
	const setPolicy = (changes: Partial<Policy>) => setDraft((d) => ({ ...d, policy: { ...d.policy, ...changes } }));
	const version = usePinnedVersion(
		props.rule?.etag,
		() => loadAssignmentRule(props.rule?.id ?? ''),
		(fresh) => {
			showRule(fresh);
			setDraft(draftOf(fresh, fresh.priority));
		},
	);
	const save = useSubmit(async () => {
		const body = assignmentBody(draft);
		await saveRule(body, version.etag);
		props.onDone();
	});
	const problems = fieldProblems(save.error);
	const id = `asg-${props.rule?.id ?? 'new'}`;
	const { policy } = draft;
	const groupProblem = problemAt(problems, 'policy.groupId');
	return (
		<form
			class="assignment-form"
			aria-label={props.rule ? t('assignment.editNamed', { name: props.rule.name }) : t('assignment.new')}
			noValidate
			onKeyDown={enterSendsNothing}
			onSubmit={(e) => {
				e.preventDefault();
				void save.submit();
			}}
		>
			<div class="grid-basics">
				<Field id={`${id}-name`} label={t('rules.name')} problem={problemAt(problems, 'name')}>
					<input
						id={`${id}-name`}
						value={draft.name}
						maxLength={100}
						{...invalid(`${id}-name`, problemAt(problems, 'name'))}
						onInput={(e) => set({ name: e.currentTarget.value })}
					/>
				</Field>
				<Field id={`${id}-priority`} label={t('rules.priority')} problem={problemAt(problems, 'priority')}>
					<input
						id={`${id}-priority`}
						type="number"
						value={draft.priority}
						onInput={(e) => set({ priority: Number(e.currentTarget.value) })}
					/>
				</Field>
				<Check
					id={`${id}-enabled`}
					label={t('rules.enabled')}
					checked={draft.enabled}
					onChange={(enabled) => set({ enabled })}
				/>
			</div>
			<div class="grid-3">
				<Field
					id={`${id}-strategy`}
					label={t('assignment.strategy')}
					hint={t(`assignment.strategy.${policy.strategy}.hint`)}
				>
					<select
						id={`${id}-strategy`}
						value={policy.strategy}
						onChange={(e) => setPolicy({ strategy: e.currentTarget.value as Strategy })}
					>
						{STRATEGIES.map((s) => (
							<option key={s} value={s}>
								{t(`assignment.strategy.${s}`)}
							</option>
						))}
					</select>
				</Field>
				{policy.strategy === 'last_agent' && (
					<Field id={`${id}-fallback`} label={t('assignment.fallback')}>
						<select
							id={`${id}-fallback`}
							value={policy.fallback ?? 'round_robin'}
							onChange={(e) => setPolicy({ fallback: e.currentTarget.value as Fallback })}
						>
							{FALLBACKS.map((s) => (
								<option key={s} value={s}>
									{t(`assignment.strategy.${s}`)}
								</option>
							))}
						</select>
					</Field>
				)}
				<Field id={`${id}-group`} label={t('assignment.group')} problem={groupProblem}>
					<select
						id={`${id}-group`}
						value={policy.groupId ?? ''}
						{...invalid(`${id}-group`, groupProblem)}
						onChange={(e) => setPolicy({ groupId: e.currentTarget.value || null })}
					>
						<option value="">{t('assignment.anyGroup')}</option>
						{groups.map((g) => (
							<option key={g.id} value={g.id}>
								{g.name}
							</option>
						))}
					</select>
				</Field>
			</div>
			<div class="checks">
				<Check
					id={`${id}-online`}
					label={t('assignment.onlyOnline')}
					checked={policy.onlyOnline ?? true}
					onChange={(onlyOnline) => setPolicy({ onlyOnline })}
				/>
				<Check
					id={`${id}-status`}
					label={t('assignment.respectStatus')}
					checked={policy.respectStatus ?? true}
					onChange={(respectStatus) => setPolicy({ respectStatus })}
				/>
				<Check
					id={`${id}-hours`}
					label={t('assignment.businessHours')}
					checked={policy.considerBusinessHours ?? false}
					onChange={(considerBusinessHours) => setPolicy({ considerBusinessHours })}
				/>
			</div>
			<h3>{t('assignment.which')}</h3>
			<ConditionEditor
				id={`${id}-cond`}
				group={draft.condition}
				facts={assignmentFacts()}
				problems={problems}
				onChange={(condition) => set({ condition })}
			/>
			<div class="save-bar">
				{changedElsewhere(save.error) ? (
					version.notice(save.error)
				) : (
					<SaveProblem error={save.error} problems={problems} />
				)}
				<button type="button" onClick={props.onDone}>
					{t('common.cancel')}
				</button>
				<button type="submit" class="primary" disabled={save.busy}>
					{save.busy ? t('rules.saving') : props.rule ? t('rules.save') : t('assignment.create')}
				</button>
			</div>
		</form>
	);
}
