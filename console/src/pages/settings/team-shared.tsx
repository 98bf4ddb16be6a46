import { PERMISSIONS, type Permission } from '../../../../src/model/permissions';
import type { Schemas } from '../../api/client';
import { t } from '../../i18n';

export type Operator = Schemas['Operator'];
export type { Permission } from '../../../../src/model/permissions';
export type Group = Schemas['Group'];
export type PresenceStatus = Schemas['Presence']['status'];

/** The permissions as checkboxes, each with what it allows. */
export function PermissionChoice(props: {
	id: string;
	value: Permission[];
	onChange: (value: Permission[]) => void;
	offer?: Permission[];
	legend?: string;
}) {
	const offer = props.offer ?? PERMISSIONS;
	return (
		<fieldset class="choice permissions">
			<legend>{props.legend ?? t('team.permissions')}</legend>
			{offer.map((permission) => (
				<label key={permission} class="inline check" for={`${props.id}-${permission}`}>
					<input
						id={`${props.id}-${permission}`}
						type="checkbox"
						checked={props.value.includes(permission)}
						onChange={(e) => {
							const on = e.currentTarget.checked;
							props.onChange(PERMISSIONS.filter((p) => (p === permission ? on : props.value.includes(p))));
						}}
					/>
					<span>
						{t(`team.perm.${permission}`)}
						<small class="muted">{t(`team.perm.${permission}.hint`)}</small>
					</span>
				</label>
			))}
		</fieldset>
	);
}

/** Groups as checkboxes (none when the workspace has none). */
export function GroupChoice(props: {
	id: string;
	groups: Group[];
	value: string[];
	onChange: (ids: string[]) => void;
}) {
	if (props.groups.length === 0) return null;
	return (
		<fieldset class="choice">
			<legend>{t('team.groups')}</legend>
			{props.groups.map((group) => (
				<label key={group.id} class="inline" for={`${props.id}-${group.id}`}>
					<input
						id={`${props.id}-${group.id}`}
						type="checkbox"
						checked={props.value.includes(group.id)}
						onChange={(e) => {
							const on = e.currentTarget.checked;
							props.onChange(on ? [...props.value, group.id] : props.value.filter((id) => id !== group.id));
						}}
					/>
					{group.name}
				</label>
			))}
		</fieldset>
	);
}
