import { useState } from 'preact/hooks';
import { useCreateGroup, useRemoveGroup, useSaveGroup } from '../../data/team';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { Section } from './form';
import type { Group, Operator } from './team-shared';

/** Settings › Team › Groups: create one, then per group rename it, choose its members, or delete it. */
export function Groups({ groups, members }: { groups: Group[]; members: Operator[] }) {
	const [name, setName] = useState('');
	const createGroup = useCreateGroup();
	const create = useSubmit(async () => {
		await createGroup(name);
		setName('');
	});
	return (
		<Section id="groups" title={t('team.groups')} intro={t('team.groups.intro')}>
			{groups.length === 0 && <p class="muted">{t('team.groups.none')}</p>}
			<ul class="group-list">
				{groups.map((group) => (
					<GroupRow key={group.id} group={group} members={members} />
				))}
			</ul>
			<form
				class="add-row"
				onSubmit={(event) => {
					event.preventDefault();
					void create.submit();
				}}
			>
				<label for="new-group" class="visually-hidden">
					{t('team.groups.newName')}
				</label>
				<input
					id="new-group"
					required
					maxLength={80}
					placeholder={t('team.groups.newName')}
					value={name}
					onInput={(e) => setName(e.currentTarget.value)}
				/>
				<button type="submit" disabled={create.busy}>
					{t('team.groups.create')}
				</button>
			</form>
			{create.error !== null && <Problem error={create.error} />}
		</Section>
	);
}

function GroupRow({ group, members }: { group: Group; members: Operator[] }) {
	const [editing, setEditing] = useState(false);
	const [name, setName] = useState(group.name);
	const [memberIds, setMemberIds] = useState(group.memberIds);
	const saveGroup = useSaveGroup(group.id);
	const save = useSubmit(async () => {
		await saveGroup({ name, memberIds });
		setEditing(false);
	});
	const remove = useRemoveGroup(group.id);
	const names = members.filter((m) => group.memberIds.includes(m.id)).map((m) => m.name);
	const id = `group-${group.id}`;
	return (
		<li class="group">
			<div class="member-row">
				<div class="who">
					<strong>{group.name}</strong>
					<div class="muted">{names.length ? names.join(', ') : t('team.groups.empty')}</div>
				</div>
				<button
					type="button"
					aria-expanded={editing}
					aria-controls={`${id}-panel`}
					onClick={() => setEditing(!editing)}
				>
					{t('team.groups.edit')}
					<span class="visually-hidden"> {group.name}</span>
				</button>
				<button
					type="button"
					class="danger"
					disabled={remove.isPending}
					onClick={() => {
						if (confirm(t('team.groups.deleteConfirm', { name: group.name }))) remove.mutate();
					}}
				>
					{t('team.groups.delete')}
					<span class="visually-hidden"> {group.name}</span>
				</button>
			</div>
			{remove.error && <Problem error={remove.error} />}
			{editing && (
				<form
					id={`${id}-panel`}
					class="member-panel"
					onSubmit={(event) => {
						event.preventDefault();
						void save.submit();
					}}
				>
					<label for={`${id}-name`}>{t('team.groups.name')}</label>
					<input
						id={`${id}-name`}
						required
						maxLength={80}
						value={name}
						onInput={(e) => setName(e.currentTarget.value)}
					/>
					<fieldset class="choice">
						<legend>{t('team.groups.members')}</legend>
						{members.map((member) => (
							<label key={member.id} class="inline" for={`${id}-${member.id}`}>
								<input
									id={`${id}-${member.id}`}
									type="checkbox"
									checked={memberIds.includes(member.id)}
									onChange={(e) => {
										const on = e.currentTarget.checked;
										setMemberIds(on ? [...memberIds, member.id] : memberIds.filter((m) => m !== member.id));
									}}
								/>
								{member.name}
							</label>
						))}
					</fieldset>
					{save.error !== null && <Problem error={save.error} />}
					<button type="submit" class="primary" disabled={save.busy}>
						{t('settings.save')}
					</button>
				</form>
			)}
		</li>
	);
}
