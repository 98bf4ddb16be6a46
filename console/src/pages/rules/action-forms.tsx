/**
 * Each rule action's own small form (src/engines/actions/rule-actions.ts): send a message (Liquid, with quick
 * replies), start a bot, assign to an operator or a group, apply or remove a tag here; the contact's and the
 * team's (update the contact, a task, the CRM, a notification) in action-forms-records.tsx. Fields are named
 * `actions.<i>.<field>` by the API.
 */
import { useDirectory, useTags } from '../../data/workspace';
import { t } from '../../i18n';
import { type FormProps, type Of, Pick, Text } from './action-fields';
import { CreateTask, Notify, SaveToCrm, UpdateContact } from './action-forms-records';
import type { RuleAction } from './draft';
import { Field, invalid, problemAt } from './fields';

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
				hint={props.liquid}
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
