/**
 * One auto-assignment rule as a form: its name, on or off, priority, which conversations (a condition on the
 * channel and the group), the strategy and its options (fallback for "last agent", the group, online only,
 * presence, business hours). Saves the API's JSON; a 422's problems show at their fields.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { useDirectory } from '../../api/queries';
import { t } from '../../i18n';
import { enterSendsNothing, useSubmit } from '../../ui/hooks';
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

export function AssignmentForm(props: {
	rule: AssignmentRule | null;
	/** The priority a new rule starts with: above the others, so it is tried first. */
	priority: number;
	onDone: () => void;
}) {
	const client = useQueryClient();
	const groups = useDirectory().data?.groups ?? [];
	const [draft, setDraft] = useState(() => draftOf(props.rule, props.priority));
	const set = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
	const setPolicy = (changes: Partial<Policy>) => setDraft((d) => ({ ...d, policy: { ...d.policy, ...changes } }));
	const save = useSubmit(async () => {
		const body = assignmentBody(draft);
		if (props.rule) {
			await ok(api.PATCH('/v3/assignment/rules/{id}', { params: { path: { id: props.rule.id } }, body }));
		} else {
			await ok(api.POST('/v3/assignment/rules', { body }));
		}
		await client.invalidateQueries({ queryKey: ['assignment-rules'] });
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
				<SaveProblem error={save.error} problems={problems} />
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
