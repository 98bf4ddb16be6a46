import type { ConsoleSession } from '../../data/session';
import { useTeamGroups, useTeamMembers, useTeamPresence } from '../../data/team';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { Section } from './form';
import { Groups } from './team-groups';
import { ApiUser, InviteMember } from './team-invite';
import { MemberRow } from './team-members';
import type { PresenceStatus } from './team-shared';

/**
 * Settings › Team (admins): the members with their permissions, groups, capacity, state and presence, each
 * managed in place (with their sessions); inviting a member by a one-time link; the guided API user; groups.
 */
export function TeamPage({ session }: { session: ConsoleSession }) {
	const members = useTeamMembers();
	const groups = useTeamGroups();
	const presence = useTeamPresence();
	const statusOf = new Map<string, PresenceStatus>((presence.data?.data ?? []).map((p) => [p.operatorId, p.status]));
	const allGroups = groups.data?.data ?? [];
	const allMembers = members.data?.data ?? [];
	return (
		<div class="page settings-page">
			<header class="settings-header">
				<h1>{t('team.title')}</h1>
				<p class="muted">{t('team.intro')}</p>
			</header>
			<Section id="members" title={t('team.members')}>
				{members.error && <Problem error={members.error} retry={() => members.refetch()} />}
				{members.isPending && <p class="muted">{t('common.loading')}</p>}
				<ul class="member-list" aria-label={t('team.members')}>
					{allMembers.map((member) => (
						<MemberRow
							key={member.id}
							member={member}
							groups={allGroups}
							presence={statusOf.get(member.id)}
							isMe={member.id === session.operator.id}
						/>
					))}
				</ul>
				{members.data?.nextCursor && <p class="muted">{t('team.more')}</p>}
			</Section>
			<div class="grid-2 sections">
				<InviteMember groups={allGroups} />
				<ApiUser />
			</div>
			{groups.error && <Problem error={groups.error} retry={() => groups.refetch()} />}
			<Groups groups={allGroups} members={allMembers} />
		</div>
	);
}
