import { useMemberSessions, useRevokeSession } from '../../data/team';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';

/** A browser's name from its user agent, enough to tell sessions apart. */
function browserOf(userAgent: string): string {
	const match = /(Edg|OPR|Firefox|Chrome|Safari)\/[\d.]+/.exec(userAgent);
	const name = match ? match[1]?.replace('Edg', 'Edge').replace('OPR', 'Opera') : null;
	const system = /Windows|Mac OS X|Android|iPhone|iPad|Linux/.exec(userAgent)?.[0]?.replace('Mac OS X', 'macOS');
	return [name, system].filter(Boolean).join(' · ') || userAgent || t('team.sessions.unknown');
}

/** A member's console sessions still in use, each ended with Revoke (refused from its next request). */
export function MemberSessions({ operatorId }: { operatorId: string }) {
	const sessions = useMemberSessions(operatorId);
	const revoke = useRevokeSession(operatorId);
	const rows = sessions.data?.data ?? [];
	return (
		<section class="sessions" aria-label={t('team.sessions')}>
			<h3>{t('team.sessions')}</h3>
			{sessions.error && <Problem error={sessions.error} retry={() => sessions.refetch()} />}
			{revoke.error && <Problem error={revoke.error} />}
			{sessions.isSuccess && rows.length === 0 && <p class="muted">{t('team.sessions.none')}</p>}
			<ul class="session-list">
				{rows.map((session) => (
					<li key={session.id} data-testid="session">
						<div>
							<strong>{browserOf(session.userAgent)}</strong>
							{session.current && <span class="tag">{t('team.sessions.current')}</span>}
							<div class="muted">
								{t('team.sessions.times', { since: when(session.createdAt), seen: when(session.lastSeenAt) })}
							</div>
						</div>
						<button
							type="button"
							class="danger"
							disabled={revoke.isPending}
							onClick={() => {
								if (!session.current || confirm(t('team.sessions.revokeOwn'))) revoke.mutate(session.id);
							}}
						>
							{t('team.sessions.revoke')}
						</button>
					</li>
				))}
			</ul>
		</section>
	);
}
