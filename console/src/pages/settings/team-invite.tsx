import { useState } from 'preact/hooks';
import { memberToken, passwordLink, useAddMember } from '../../data/team';
import { t, when } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, Section, ShownOnce } from './form';
import { type Group, GroupChoice, type Permission, PermissionChoice } from './team-shared';

/** Name and e-mail of a new member, with the API's problems under them. */
function Identity(props: {
	prefix: string;
	name: string;
	email: string;
	setName: (v: string) => void;
	setEmail: (v: string) => void;
	problems: Map<string, string>;
	emailHint?: string;
}) {
	const id = (part: string) => `${props.prefix}-${part}`;
	return (
		<div class="grid-2">
			<div class="field">
				<label for={id('name')}>{t('team.name')}</label>
				<input
					id={id('name')}
					required
					maxLength={120}
					value={props.name}
					onInput={(e) => props.setName(e.currentTarget.value)}
					{...invalid(id('name'), props.problems.get('name'))}
				/>
				<FieldProblem id={id('name')} message={props.problems.get('name')} />
			</div>
			<div class="field">
				<label for={id('email')}>{t('team.email')}</label>
				<input
					id={id('email')}
					type="email"
					required
					value={props.email}
					placeholder={props.emailHint}
					onInput={(e) => props.setEmail(e.currentTarget.value)}
					{...invalid(id('email'), props.problems.get('email'))}
				/>
				<FieldProblem id={id('email')} message={props.problems.get('email')} />
			</div>
		</div>
	);
}

/**
 * Invite a member: the member is added, then a one-time link to set a password is made (valid 7 days) and
 * shown here to hand over; nothing is e-mailed.
 */
export function InviteMember({ groups }: { groups: Group[] }) {
	const addMember = useAddMember();
	const [name, setName] = useState('');
	const [email, setEmail] = useState('');
	const [permissions, setPermissions] = useState<Permission[]>(['conversations:read', 'messages:send']);
	const [groupIds, setGroupIds] = useState<string[]>([]);
	const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
	const invite = useSubmit(async () => {
		const member = await addMember({ name, email, permissions, groups: groupIds });
		setLink(await passwordLink(member.id));
		setName('');
		setEmail('');
	});
	return (
		<Section id="invite" title={t('team.invite')} intro={t('team.invite.intro')}>
			{link && (
				<ShownOnce
					value={link.url}
					note={t('team.linkShownOnce', { expires: when(link.expiresAt) })}
					testId="invite-link"
					onDone={() => setLink(null)}
				/>
			)}
			<form
				onSubmit={(event) => {
					event.preventDefault();
					void invite.submit();
				}}
			>
				<Identity
					prefix="invite"
					name={name}
					email={email}
					setName={setName}
					setEmail={setEmail}
					problems={fieldProblems(invite.error)}
				/>
				<PermissionChoice id="invite-perm" value={permissions} onChange={setPermissions} />
				<GroupChoice id="invite-groups" groups={groups} value={groupIds} onChange={setGroupIds} />
				{invite.error !== null && <Problem error={invite.error} />}
				<button type="submit" class="primary" disabled={invite.busy}>
					{t('team.invite.submit')}
				</button>
			</form>
		</Section>
	);
}

/** What an integration may be given: never admin. */
const INTEGRATION: Permission[] = [
	'conversations:read',
	'messages:send',
	'contacts:write',
	'crm:access',
	'reports:view',
];

/**
 * The guided API user the spec recommends: a member with only the permissions an integration needs (never
 * admin, never a password), then its Token V3, shown once.
 */
export function ApiUser() {
	const addMember = useAddMember();
	const [open, setOpen] = useState(false);
	const [name, setName] = useState(t('team.apiUser.defaultName'));
	const [email, setEmail] = useState('');
	const [permissions, setPermissions] = useState<Permission[]>(['conversations:read']);
	const [token, setToken] = useState<string | null>(null);
	const create = useSubmit(async () => {
		if (permissions.length === 0) throw new Error(t('team.apiUser.pickOne'));
		const member = await addMember({ name, email, permissions });
		const issued = await memberToken(member.id);
		setToken(issued.token);
		setOpen(false);
		setEmail('');
	});
	return (
		<Section id="api-user" title={t('team.apiUser')} intro={t('team.apiUser.intro')}>
			{token && (
				<ShownOnce
					value={token}
					note={t('team.apiUser.shownOnce')}
					testId="api-user-token"
					onDone={() => setToken(null)}
				/>
			)}
			{!open ? (
				<button type="button" onClick={() => setOpen(true)}>
					{t('team.apiUser.start')}
				</button>
			) : (
				<form
					onSubmit={(event) => {
						event.preventDefault();
						void create.submit();
					}}
				>
					<Identity
						prefix="api-user"
						name={name}
						email={email}
						setName={setName}
						setEmail={setEmail}
						problems={fieldProblems(create.error)}
						emailHint="integration@example.com"
					/>
					<PermissionChoice
						id="api-user-perm"
						legend={t('team.apiUser.needs')}
						offer={INTEGRATION}
						value={permissions}
						onChange={setPermissions}
					/>
					{create.error !== null && <Problem error={create.error} />}
					<div class="actions">
						<button type="submit" class="primary" disabled={create.busy}>
							{t('team.apiUser.create')}
						</button>
						<button type="button" onClick={() => setOpen(false)}>
							{t('settings.cancel')}
						</button>
					</div>
				</form>
			)}
		</Section>
	);
}
