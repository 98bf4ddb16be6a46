/**
 * A rule's actions in the order they run: each a card with its own form, moved up or down by buttons (the
 * focus follows the moved card's button, so the keyboard can keep moving it), removed, or added at the end.
 */
import { useEffect, useState } from 'preact/hooks';
import { ruleVariableNames } from '../../../../src/model/rule-variables';
import { t } from '../../i18n';
import { ActionForm } from './action-forms';
import { type ActionType, actionOf, moved, newKey, type RuleAction, type TriggerKind } from './draft';
import { type Problems, problemAt } from './fields';

export const ACTION_TYPES: readonly ActionType[] = [
	'send_message',
	'assign',
	'apply_tag',
	'start_bot',
	'update_contact',
	'create_task',
	'save_to_crm',
	'notify',
];

export interface KeyedAction {
	key: number;
	action: RuleAction;
}

export function ActionList(props: {
	trigger: TriggerKind;
	actions: readonly KeyedAction[];
	problems: Problems;
	onChange: (actions: KeyedAction[]) => void;
}) {
	const { actions } = props;
	const [adding, setAdding] = useState<ActionType>('send_message');
	const [focus, setFocus] = useState<string | null>(null);
	useEffect(() => {
		if (focus === null) return;
		const target = document.getElementById(focus) as HTMLButtonElement | null;
		// At an end the button it came from is disabled: its neighbour takes the focus instead.
		(target?.disabled
			? target.parentElement?.querySelector<HTMLButtonElement>('button:not(:disabled)')
			: target
		)?.focus();
		setFocus(null);
	}, [focus]);
	const move = (i: number, by: number) => {
		const item = actions[i];
		if (!item) return;
		props.onChange(moved(actions, i, by));
		setFocus(`action-${item.key}-${by < 0 ? 'up' : 'down'}`);
	};
	const set = (i: number, action: RuleAction) =>
		props.onChange(actions.map((item, j) => (j === i ? { ...item, action } : item)));
	const listProblem = problemAt(props.problems, 'actions');
	// The same table the runner fills templates from, so the hint names what a template really reads.
	const liquid = t('rules.action.liquid', { names: ruleVariableNames(props.trigger).join(', ') });
	return (
		<div class="action-list">
			{listProblem && <p class="field-problem">{listProblem}</p>}
			{actions.length === 0 && <p class="muted empty-note">{t('rules.actions.none')}</p>}
			<ol>
				{actions.map((item, i) => {
					const n = i + 1;
					const name = t(`rules.action.${item.action.type}`);
					const at = `actions.${i}`;
					return (
						<li key={item.key} class="action-card" aria-label={t('rules.actions.n', { n, name })}>
							<div class="action-head">
								<span class="step">{n}</span>
								<label class="visually-hidden" for={`action-${item.key}-type`}>
									{t('rules.actions.type', { n })}
								</label>
								<select
									id={`action-${item.key}-type`}
									value={item.action.type}
									onChange={(e) => set(i, actionOf(e.currentTarget.value as ActionType))}
								>
									{ACTION_TYPES.map((type) => (
										<option key={type} value={type}>
											{t(`rules.action.${type}`)}
										</option>
									))}
								</select>
								<div class="move">
									<button
										type="button"
										id={`action-${item.key}-up`}
										class="icon"
										disabled={i === 0}
										aria-label={t('rules.actions.up', { n })}
										title={t('rules.actions.up', { n })}
										onClick={() => move(i, -1)}
									>
										↑
									</button>
									<button
										type="button"
										id={`action-${item.key}-down`}
										class="icon"
										disabled={i === actions.length - 1}
										aria-label={t('rules.actions.down', { n })}
										title={t('rules.actions.down', { n })}
										onClick={() => move(i, 1)}
									>
										↓
									</button>
									<button
										type="button"
										class="icon danger"
										aria-label={t('rules.actions.remove', { n })}
										title={t('rules.actions.remove', { n })}
										onClick={() => props.onChange(actions.filter((_, j) => j !== i))}
									>
										×
									</button>
								</div>
							</div>
							<ActionForm
								id={`action-${item.key}`}
								action={item.action}
								at={at}
								problems={props.problems}
								liquid={liquid}
								onChange={(action) => set(i, action)}
							/>
						</li>
					);
				})}
			</ol>
			<div class="add-action">
				<label class="visually-hidden" for="new-action-type">
					{t('rules.actions.newType')}
				</label>
				<select id="new-action-type" value={adding} onChange={(e) => setAdding(e.currentTarget.value as ActionType)}>
					{ACTION_TYPES.map((type) => (
						<option key={type} value={type}>
							{t(`rules.action.${type}`)}
						</option>
					))}
				</select>
				<button type="button" onClick={() => props.onChange([...actions, { key: newKey(), action: actionOf(adding) }])}>
					{t('rules.actions.add')}
				</button>
			</div>
		</div>
	);
}
