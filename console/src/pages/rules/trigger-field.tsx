/**
 * When a rule fires: the spec's triggers by human names, and what some of them need (a window of days, a
 * tag, a custom field, a wait in minutes, a deal stage).
 */
import { useDirectory, useFunnels, useTags } from '../../data/workspace';
import { t } from '../../i18n';
import { type RuleTrigger, type TriggerKind, triggerOf } from './draft';
import { Field, invalid, type Problems, problemAt } from './fields';

export const TRIGGERS: readonly TriggerKind[] = [
	'new_contact',
	'conversation_assigned',
	'conversation_closed',
	'message_outside_hours',
	'tag_applied',
	'custom_field_updated',
	'conversation_waiting',
	'deal_stage_changed',
];

export function TriggerFields(props: {
	trigger: RuleTrigger;
	problems: Problems;
	onChange: (trigger: RuleTrigger) => void;
}) {
	const { trigger } = props;
	const directory = useDirectory().data;
	const fields = (directory?.customFields ?? []).filter((f) => f.entity === 'contact');
	const problem = (key: string) => problemAt(props.problems, `trigger.${key}`);
	return (
		<div class="grid-2">
			<Field id="rule-trigger" label={t('rules.trigger')} problem={problemAt(props.problems, 'trigger', true)}>
				<select
					id="rule-trigger"
					value={trigger.kind}
					onChange={(e) =>
						props.onChange(
							triggerOf(
								e.currentTarget.value as TriggerKind,
								fields.map((f) => f.key),
							),
						)
					}
				>
					{TRIGGERS.map((kind) => (
						<option key={kind} value={kind}>
							{t(`rules.trigger.${kind}`)}
						</option>
					))}
				</select>
			</Field>
			{trigger.kind === 'new_contact' && (
				<Field id="rule-window" label={t('rules.trigger.windowDays')} problem={problem('windowDays')}>
					<input
						id="rule-window"
						type="number"
						min={1}
						max={365}
						value={trigger.windowDays ?? 30}
						{...invalid('rule-window', problem('windowDays'))}
						onInput={(e) => props.onChange({ ...trigger, windowDays: Number(e.currentTarget.value) })}
					/>
				</Field>
			)}
			{trigger.kind === 'tag_applied' && (
				<TagTrigger trigger={trigger} problem={problem('tag')} onChange={props.onChange} />
			)}
			{trigger.kind === 'custom_field_updated' && (
				<Field id="rule-field" label={t('rules.trigger.field')} problem={problem('field')}>
					<select
						id="rule-field"
						value={trigger.field}
						{...invalid('rule-field', problem('field'))}
						onChange={(e) => props.onChange({ ...trigger, field: e.currentTarget.value })}
					>
						{!fields.some((f) => f.key === trigger.field) && <option value={trigger.field}>{trigger.field}</option>}
						{fields.map((f) => (
							<option key={f.key} value={f.key}>
								{f.label}
							</option>
						))}
					</select>
				</Field>
			)}
			{trigger.kind === 'conversation_waiting' && (
				<Field id="rule-minutes" label={t('rules.trigger.minutes')} problem={problem('minutes')}>
					<input
						id="rule-minutes"
						type="number"
						min={1}
						max={10080}
						value={trigger.minutes}
						{...invalid('rule-minutes', problem('minutes'))}
						onInput={(e) => props.onChange({ ...trigger, minutes: Number(e.currentTarget.value) })}
					/>
				</Field>
			)}
			{trigger.kind === 'deal_stage_changed' && (
				<StageTrigger trigger={trigger} problem={problem('stageId')} onChange={props.onChange} />
			)}
		</div>
	);
}

function TagTrigger(props: {
	trigger: Extract<RuleTrigger, { kind: 'tag_applied' }>;
	problem: string | undefined;
	onChange: (trigger: RuleTrigger) => void;
}) {
	const tags = useTags().data ?? [];
	return (
		<Field id="rule-tag" label={t('rules.trigger.tag')} problem={props.problem} hint={t('rules.trigger.tagHint')}>
			<input
				id="rule-tag"
				list="rule-tag-suggestions"
				value={props.trigger.tag ?? ''}
				{...invalid('rule-tag', props.problem)}
				onInput={(e) => {
					const tag = e.currentTarget.value;
					props.onChange(tag.trim() === '' ? { kind: 'tag_applied' } : { kind: 'tag_applied', tag });
				}}
			/>
			<datalist id="rule-tag-suggestions">
				{tags.map((tag) => (
					<option key={tag.name} value={tag.name} />
				))}
			</datalist>
		</Field>
	);
}

function StageTrigger(props: {
	trigger: Extract<RuleTrigger, { kind: 'deal_stage_changed' }>;
	problem: string | undefined;
	onChange: (trigger: RuleTrigger) => void;
}) {
	const funnels = useFunnels().data ?? [];
	return (
		<Field id="rule-stage" label={t('rules.trigger.stage')} problem={props.problem}>
			<select
				id="rule-stage"
				value={props.trigger.stageId ?? ''}
				{...invalid('rule-stage', props.problem)}
				onChange={(e) => {
					const stageId = e.currentTarget.value;
					props.onChange(stageId === '' ? { kind: 'deal_stage_changed' } : { kind: 'deal_stage_changed', stageId });
				}}
			>
				<option value="">{t('rules.trigger.anyStage')}</option>
				{funnels.map((funnel) => (
					<optgroup key={funnel.id} label={funnel.name}>
						{funnel.stages.map((stage) => (
							<option key={stage.id} value={stage.id}>
								{stage.name}
							</option>
						))}
					</optgroup>
				))}
			</select>
		</Field>
	);
}
