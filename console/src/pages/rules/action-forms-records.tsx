/**
 * The rule actions about the contact and the team: update the contact, create a task, save the transcript to
 * the CRM (with a deal to create when there is none), notify operators.
 */
import { useDirectory, useFunnels } from '../../data/workspace';
import { t } from '../../i18n';
import { type FormProps, type Of, Pick, Text } from './action-fields';
import { Check, Field, invalid, problemAt } from './fields';

export function UpdateContact(props: FormProps<Of<'update_contact'>>) {
	const fields = (useDirectory().data?.customFields ?? []).filter((f) => f.entity === 'contact');
	const custom = props.action.custom_fields ?? {};
	return (
		<>
			<p class="hint muted">{t('rules.action.updateHint')}</p>
			<div class="grid-3">
				<Text {...props} field="name" label={t('rules.fact.name')} value={props.action.name} />
				<Text {...props} field="email" label={t('rules.fact.email')} value={props.action.email} />
				<Text {...props} field="phone" label={t('rules.fact.phone')} value={props.action.phone} />
				{fields.map((f) => {
					const id = `${props.id}-cf-${f.key}`;
					const problem = problemAt(props.problems, `${props.at}.custom_fields.${f.key}`);
					return (
						<Field key={f.key} id={id} label={f.label} problem={problem}>
							<input
								id={id}
								value={custom[f.key] ?? ''}
								{...invalid(id, problem)}
								onInput={(e) =>
									props.onChange({ ...props.action, custom_fields: { ...custom, [f.key]: e.currentTarget.value } })
								}
							/>
						</Field>
					);
				})}
			</div>
		</>
	);
}

export function CreateTask(props: FormProps<Of<'create_task'>>) {
	const operators = useDirectory().data?.operators ?? [];
	const id = `${props.id}-due`;
	const problem = problemAt(props.problems, `${props.at}.dueInMinutes`);
	return (
		<div class="grid-3">
			<Text {...props} field="title" label={t('rules.action.title')} value={props.action.title} hint={props.liquid} />
			<Pick
				{...props}
				field="assigneeId"
				label={t('rules.action.taskAssignee')}
				value={props.action.assigneeId}
				empty={t('rules.action.conversationAssignee')}
				choices={operators.filter((o) => !o.disabled).map((o) => [o.id, o.name])}
				set={(assigneeId) => ({ ...props.action, assigneeId })}
			/>
			<Field id={id} label={t('rules.action.dueIn')} problem={problem}>
				<input
					id={id}
					type="number"
					min={1}
					value={props.action.dueInMinutes ?? ''}
					{...invalid(id, problem)}
					onInput={(e) => {
						const { dueInMinutes: _, ...rest } = props.action;
						const minutes = e.currentTarget.value;
						props.onChange(minutes === '' ? rest : { ...rest, dueInMinutes: Number(minutes) });
					}}
				/>
			</Field>
		</div>
	);
}

export function SaveToCrm(props: FormProps<Of<'save_to_crm'>>) {
	const funnels = useFunnels().data ?? [];
	const deal = props.action.newDeal;
	const at = `${props.at}.newDeal`;
	const setDeal = (changes: Partial<NonNullable<typeof deal>>) =>
		props.onChange({ type: 'save_to_crm', newDeal: { funnelId: '', name: '', ...deal, ...changes } });
	const funnel = funnels.find((f) => f.id === deal?.funnelId);
	return (
		<>
			<Check
				id={`${props.id}-new-deal`}
				label={t('rules.action.newDeal')}
				checked={deal !== undefined}
				onChange={(on) =>
					props.onChange(
						on
							? { type: 'save_to_crm', newDeal: { funnelId: funnels[0]?.id ?? '', name: '{{ contact.name }}' } }
							: { type: 'save_to_crm' },
					)
				}
			/>
			{deal && (
				<div class="grid-3">
					<Pick
						{...props}
						at={at}
						field="funnelId"
						label={t('rules.action.funnel')}
						value={deal.funnelId}
						empty={t('rules.value.choose')}
						choices={funnels.map((f) => [f.id, f.name])}
						set={(funnelId) => ({ type: 'save_to_crm', newDeal: { ...deal, funnelId, stageId: undefined } })}
					/>
					<Pick
						{...props}
						at={at}
						field="stageId"
						label={t('rules.action.stage')}
						value={deal.stageId}
						empty={t('rules.action.firstStage')}
						choices={(funnel?.stages ?? []).map((s) => [s.id, s.name])}
						set={(stageId) => ({ type: 'save_to_crm', newDeal: { ...deal, stageId: stageId || undefined } })}
					/>
					<Field
						id={`${props.id}-deal-name`}
						label={t('rules.action.dealName')}
						problem={problemAt(props.problems, `${at}.name`)}
					>
						<input
							id={`${props.id}-deal-name`}
							value={deal.name}
							onInput={(e) => setDeal({ name: e.currentTarget.value })}
						/>
					</Field>
				</div>
			)}
		</>
	);
}

export function Notify(props: FormProps<Of<'notify'>>) {
	const operators = (useDirectory().data?.operators ?? []).filter((o) => !o.disabled);
	const chosen = props.action.operatorIds ?? [];
	return (
		<>
			<Text
				{...props}
				field="text"
				label={t('rules.action.notifyText')}
				value={props.action.text}
				multiline
				hint={props.liquid}
			/>
			<fieldset class="plain-fieldset">
				<legend>{t('rules.action.notifyWho')}</legend>
				<div class="checks">
					{operators.map((o) => (
						<Check
							key={o.id}
							id={`${props.id}-op-${o.id}`}
							label={o.name}
							checked={chosen.includes(o.id)}
							onChange={(on) =>
								props.onChange({
									...props.action,
									operatorIds: on ? [...chosen, o.id] : chosen.filter((id) => id !== o.id),
								})
							}
						/>
					))}
				</div>
			</fieldset>
		</>
	);
}
