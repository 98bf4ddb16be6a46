import { useState } from 'preact/hooks';
import { usePasswordLink, useRemoveMember, useSaveMember } from '../../data/team';
import { t, when } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, ShownOnce, Switch } from './form';
import { MemberSessions } from './team-sessions';
import { type Group, GroupChoice, type Operator, PermissionChoice, type PresenceStatus } from './team-shared';

/** A member of the list: who, what they may do, their state; Manage opens the editing panel below the row. */
export function MemberRow(props: {
	member: Operator;
	groups: Group[];
	presence: PresenceStatus | undefined;
	isMe: boolean;
}) {
	const { member } = props;
	const [open, setOpen] = useState(false);
	const panel = `member-${member.id}-panel`;
	const status = member.disabled ? 'disabled' : (props.presence ?? 'offline');
	return (
		<li class={`member${member.disabled ? ' is-disabled' : ''}`}>
			<div class="member-row">
				<span class="avatar" aria-hidden="true">
					{member.name.slice(0, 1).toUpperCase()}
					<span class={`presence ${status}`} />
				</span>
				<div class="who">
					<strong>{member.name}</strong>
					{props.isMe && <span class="tag">{t('team.you')}</span>}
					<div class="muted">{member.email}</div>
				</div>
				<div class="facts">
					<span class={`status ${status}`}>{t(`team.status.${status}`)}</span>
					{member.permissions.map((p) => (
						<span key={p} class="tag">
							{t(`team.perm.${p}`)}
						</span>
					))}
					{member.groups.map((g) => (
						<span key={g.id} class="tag group">
							{g.name}
						</span>
					))}
					<span class="muted">
						{member.capacity === null ? t('team.capacity.none') : t('team.capacity.n', { n: member.capacity })}
					</span>
				</div>
				<button type="button" aria-expanded={open} aria-controls={panel} onClick={() => setOpen(!open)}>
					{t('team.manage')}
					<span class="visually-hidden"> {member.name}</span>
				</button>
			</div>
			{open && <MemberPanel id={panel} member={member} groups={props.groups} isMe={props.isMe} />}
		</li>
	);
}

function MemberPanel(props: { id: string; member: Operator; groups: Group[]; isMe: boolean }) {
	const { member } = props;
	const [name, setName] = useState(member.name);
	const [permissions, setPermissions] = useState(member.permissions);
	const [groupIds, setGroupIds] = useState(member.groups.map((g) => g.id));
	const [capacity, setCapacity] = useState(member.capacity === null ? '' : String(member.capacity));
	const [disabled, setDisabled] = useState(member.disabled);
	const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
	const saveMember = useSaveMember(member.id);
	const saveChanges = useSubmit(() =>
		saveMember({ name, permissions, groups: groupIds, capacity: capacity === '' ? null : Number(capacity), disabled }),
	);
	const resetLink = usePasswordLink(member.id, setLink);
	const remove = useRemoveMember(member.id);
	const problems = fieldProblems(saveChanges.error);
	const field = (part: string) => `${props.id}-${part}`;
	return (
		<div class="member-panel" id={props.id}>
			<form
				onSubmit={(event) => {
					event.preventDefault();
					void saveChanges.submit();
				}}
			>
				<div class="grid-2">
					<div class="field">
						<label for={field('name')}>{t('team.name')}</label>
						<input
							id={field('name')}
							value={name}
							required
							maxLength={120}
							onInput={(e) => setName(e.currentTarget.value)}
							{...invalid(field('name'), problems.get('name'))}
						/>
						<FieldProblem id={field('name')} message={problems.get('name')} />
					</div>
					<div class="field">
						<label for={field('capacity')}>{t('team.capacity')}</label>
						<input
							id={field('capacity')}
							type="number"
							min={0}
							placeholder={t('team.capacity.unlimited')}
							value={capacity}
							onInput={(e) => setCapacity(e.currentTarget.value)}
							{...invalid(field('capacity'), problems.get('capacity'))}
						/>
						<FieldProblem id={field('capacity')} message={problems.get('capacity')} />
					</div>
				</div>
				<PermissionChoice id={field('perm')} value={permissions} onChange={setPermissions} />
				<GroupChoice id={field('groups')} groups={props.groups} value={groupIds} onChange={setGroupIds} />
				{!props.isMe && (
					<Switch id={field('disabled')} label={t('team.disabled')} checked={disabled} onChange={setDisabled} />
				)}
				{saveChanges.error !== null && <Problem error={saveChanges.error} />}
				<div class="actions">
					<button type="submit" class="primary" disabled={saveChanges.busy}>
						{t('team.saveMember')}
					</button>
					<button type="button" disabled={resetLink.isPending} onClick={() => resetLink.mutate()}>
						{t('team.resetLink')}
					</button>
					{!props.isMe && (
						<button
							type="button"
							class="danger"
							disabled={remove.isPending}
							onClick={() => {
								if (confirm(t('team.removeConfirm', { name: member.name }))) remove.mutate();
							}}
						>
							{t('team.remove')}
						</button>
					)}
				</div>
			</form>
			{resetLink.error && <Problem error={resetLink.error} />}
			{remove.error && <Problem error={remove.error} />}
			{link && (
				<ShownOnce
					value={link.url}
					note={t('team.linkShownOnce', { expires: when(link.expiresAt) })}
					testId="password-link"
					onDone={() => setLink(null)}
				/>
			)}
			<MemberSessions operatorId={member.id} />
		</div>
	);
}
