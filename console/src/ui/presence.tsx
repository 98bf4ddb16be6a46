import { PRESENCE_STATUSES, type PresenceStatus } from '../../../src/model/presence';
import { useSetMyStatus } from '../data/session';
import { useDirectory } from '../data/workspace';
import { useFeedConnected, usePresence } from '../feed';
import { t } from '../i18n';
import { Problem } from './problem';

/** A coloured dot and the status's name: how the team sees an operator. */
export function PresenceDot({ status }: { status: PresenceStatus }) {
	return (
		<span class={`presence presence-${status}`} title={t(`presence.${status}`)}>
			<span class="visually-hidden">{t(`presence.${status}`)}</span>
		</span>
	);
}

/** The operator's own status, set for the team to see (and for auto-assignment to respect). */
export function PresencePicker({ operatorId }: { operatorId: string }) {
	const presence = usePresence();
	const connected = useFeedConnected();
	const status = presence.get(operatorId) ?? 'offline';
	const change = useSetMyStatus();
	const shown = change.isPending && change.variables ? change.variables : status;
	return (
		<div class="presence-picker-wrap">
			<div class="presence-picker">
				<label for="my-status" class="visually-hidden">
					{t('presence.mine')}
				</label>
				<PresenceDot status={shown} />
				<select id="my-status" value={shown} onChange={(e) => change.mutate(e.currentTarget.value as PresenceStatus)}>
					{PRESENCE_STATUSES.map((s) => (
						<option key={s} value={s}>
							{t(`presence.${s}`)}
						</option>
					))}
				</select>
			</div>
			{change.error && <Problem error={change.error} />}
			{!connected && (
				<p class="muted small" role="status">
					{t('presence.reconnecting')}
				</p>
			)}
		</div>
	);
}

const ORDER: Record<PresenceStatus, number> = { online: 0, busy: 1, away: 2, offline: 3 };

/** The team and each one's status, the available first: who is around to take a conversation. */
export function TeamPresence() {
	const directory = useDirectory();
	const presence = usePresence();
	const team = (directory.data?.operators ?? [])
		.filter((o) => !o.disabled)
		.map((o) => ({ ...o, status: presence.get(o.id) ?? ('offline' as const) }))
		.sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.name.localeCompare(b.name));
	const online = team.filter((o) => o.status === 'online').length;
	return (
		<details class="team-presence">
			<summary>{t('presence.team', { n: online })}</summary>
			<ul class="plain">
				{team.map((o) => (
					<li key={o.id}>
						<PresenceDot status={o.status} /> {o.name}
					</li>
				))}
			</ul>
		</details>
	);
}
