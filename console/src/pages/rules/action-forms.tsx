/**
 * Each rule action's own small form (src/actions/rule-actions.ts): send a message (Liquid, with quick
 * replies), start a bot, assign to an operator or a group, apply or remove a tag, update the contact, create
 * a task, save the transcript to the CRM, notify the team. Fields are named `actions.<i>.<field>` by the API.
 */
import { useDirectory, useTags } from '../../api/queries';
import { t } from '../../i18n';
import type { RuleAction } from './draft';
import { Check, Field, invalid, type Problems, problemAt } from './fields';
import { useFunnels } from './trigger-field';

type Of<T extends RuleAction['type']> = Extract<RuleAction, { type: T }>;

interface FormProps<A extends RuleAction> {
	id: string;
	action: A;
	at: string;
	problems: Problems;
	onChange: (action: RuleAction) => void;
}

export function ActionForm(props: FormProps<RuleAction>) {
	const { action } = props;
	switch (action.type) {
		case 'send_message':
			return <SendMessage {...props} action={action} />;
		case 'start_bot':
			return <StartBot {...props} action={action} />;
		case 'assign':
			return <Assign {...props} action={action} />;
		case 'apply_tag':
			return <Tag {...props} action={action} />;
		case 'update_contact':
			return <UpdateContact {...props} action={action} />;
		case 'create_task':
			return <CreateTask {...props} action={action} />;
		case 'save_to_crm':
			return <SaveToCrm {...props} action={action} />;
		case 'notify':
			return <Notify {...props} action={action} />;
	}
}

/** A text field of the action: `key` names both the field and the API's path. */
function Text<A extends RuleAction>(
	props: FormProps<A> & { field: string; label: string; value: string | undefined; multiline?: boolean; hint?: string },
) {
	const id = `${props.id}-${props.field}`;
	const problem = problemAt(props.problems, `${props.at}.${props.field}`, true);
	const attrs = {
		id,
		value: props.value ?? '',
		...invalid(id, problem),
		onInput: (e: { currentTarget: { value: string } }) =>
			props.onChange({ ...props.action, [props.field]: e.currentTarget.value } as RuleAction),
	};
	return (
		<Field id={id} label={props.label} problem={problem} hint={props.hint}>
			{props.multiline ? <textarea rows={3} {...attrs} /> : <input {...attrs} />}
		</Field>
	);
}

function SendMessage(props: FormProps<Of<'send_message'>>) {
	const id = `${props.id}-buttons`;
	const problem = problemAt(props.problems, `${props.at}.buttons`, true);
	return (
		<>
			<Text
				{...props}
				field="text"
				label={t('rules.action.text')}
				value={props.action.text}
				multiline
				hint={t('rules.action.liquid')}
			/>
			<Field id={id} label={t('rules.action.buttons')} problem={problem} hint={t('rules.action.buttonsHint')}>
				<textarea
					id={id}
					rows={2}
					value={(props.action.buttons ?? []).join('\n')}
					{...invalid(id, problem)}
					onInput={(e) => props.onChange({ ...props.action, buttons: e.currentTarget.value.split('\n') })}
				/>
			</Field>
		</>
	);
}

/** A select of `[value, label]` choices for one of the action's id fields, the current id kept if unknown. */
function Pick<A extends RuleAction>(
	props: FormProps<A> & {
		field: string;
		label: string;
		value: string | undefined;
		choices: Array<[string, string]>;
		empty: string;
		set: (value: string) => RuleAction;
	},
) {
	const id = `${props.id}-${props.field}`;
	const problem = problemAt(props.problems, `${props.at}.${props.field}`, true);
	const value = props.value ?? '';
	const known = value === '' || props.choices.some(([v]) => v === value);
	return (
		<Field id={id} label={props.label} problem={problem}>
			<select
				id={id}
				value={value}
				{...invalid(id, problem)}
				onChange={(e) => props.onChange(props.set(e.currentTarget.value))}
			>
				<option value="">{props.empty}</option>
				{!known && <option value={value}>{value}</option>}
				{props.choices.map(([v, label]) => (
					<option key={v} value={v}>
						{label}
					</option>
				))}
			</select>
		</Field>
	);
}

function StartBot(props: FormProps<Of<'start_bot'>>) {
	const bots = useDirectory().data?.bots ?? [];
	return (
		<Pick
			{...props}
			field="botId"
			label={t('rules.action.bot')}
			value={props.action.botId}
			empty={t('rules.value.choose')}
			choices={bots.map((b) => [b.id, b.name])}
			set={(botId) => ({ ...props.action, botId })}
		/>
	);
}

function Assign(props: FormProps<Of<'assign'>>) {
	const directory = useDirectory().data;
	const toGroup = props.action.groupId !== undefined;
	const problem = problemAt(props.problems, props.at);
	return (
		<>
			<div class="inline-choice" role="radiogroup" aria-label={t('rules.action.assignTo')}>
				{(['operator', 'group'] as const).map((to) => (
					<label key={to}>
						<input
							type="radio"
							name={`${props.id}-to`}
							checked={(to === 'group') === toGroup}
							onChange={() =>
								props.onChange(to === 'group' ? { type: 'assign', groupId: '' } : { type: 'assign', operatorId: '' })
							}
						/>
						{t(to === 'group' ? 'rules.action.toGroup' : 'rules.action.toOperator')}
					</label>
				))}
			</div>
			{toGroup ? (
				<Pick
					{...props}
					field="groupId"
					label={t('rules.action.group')}
					value={props.action.groupId}
					empty={t('rules.value.choose')}
					choices={(directory?.groups ?? []).map((g) => [g.id, g.name])}
					set={(groupId) => ({ type: 'assign', groupId })}
				/>
			) : (
				<Pick
					{...props}
					field="operatorId"
					label={t('rules.action.operator')}
					value={props.action.operatorId}
					empty={t('rules.value.choose')}
					choices={(directory?.operators ?? []).filter((o) => !o.disabled).map((o) => [o.id, o.name])}
					set={(operatorId) => ({ type: 'assign', operatorId })}
				/>
			)}
			{problem && <p class="field-problem">{problem}</p>}
		</>
	);
}

function Tag(props: FormProps<Of<'apply_tag'>>) {
	const tags = useTags().data ?? [];
	const id = `${props.id}-tag`;
	const problem = problemAt(props.problems, `${props.at}.tag`);
	return (
		<div class="grid-3">
			<Field id={`${props.id}-remove`} label={t('rules.action.tagDo')}>
				<select
					id={`${props.id}-remove`}
					value={props.action.remove ? 'remove' : 'apply'}
					onChange={(e) => props.onChange({ ...props.action, remove: e.currentTarget.value === 'remove' })}
				>
					<option value="apply">{t('rules.action.tagApply')}</option>
					<option value="remove">{t('rules.action.tagRemove')}</option>
				</select>
			</Field>
			<Field id={id} label={t('rules.action.tag')} problem={problem}>
				<input
					id={id}
					list={`${id}-suggestions`}
					value={props.action.tag}
					{...invalid(id, problem)}
					onInput={(e) => props.onChange({ ...props.action, tag: e.currentTarget.value })}
				/>
				<datalist id={`${id}-suggestions`}>
					{tags.map((tag) => (
						<option key={tag.name} value={tag.name} />
					))}
				</datalist>
			</Field>
			<Field id={`${props.id}-target`} label={t('rules.action.tagTarget')}>
				<select
					id={`${props.id}-target`}
					value={props.action.target ?? 'conversation'}
					onChange={(e) =>
						props.onChange({ ...props.action, target: e.currentTarget.value as 'conversation' | 'contact' })
					}
				>
					<option value="conversation">{t('rules.action.onConversation')}</option>
					<option value="contact">{t('rules.action.onContact')}</option>
				</select>
			</Field>
		</div>
	);
}

function UpdateContact(props: FormProps<Of<'update_contact'>>) {
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

function CreateTask(props: FormProps<Of<'create_task'>>) {
	const operators = useDirectory().data?.operators ?? [];
	const id = `${props.id}-due`;
	const problem = problemAt(props.problems, `${props.at}.dueInMinutes`);
	return (
		<div class="grid-3">
			<Text {...props} field="title" label={t('rules.action.title')} value={props.action.title} />
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

function SaveToCrm(props: FormProps<Of<'save_to_crm'>>) {
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

function Notify(props: FormProps<Of<'notify'>>) {
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
				hint={t('rules.action.liquid')}
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
