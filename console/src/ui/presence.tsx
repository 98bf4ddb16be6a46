import { useMutation } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { type PresenceStatus, usePresence } from '../feed';
import { t } from '../i18n';
import { Problem } from './problem';

const STATUSES: PresenceStatus[] = ['online', 'away', 'busy', 'offline'];

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
	const status = presence.get(operatorId) ?? 'offline';
	const change = useMutation({
		mutationFn: (next: PresenceStatus) => ok(api.PUT('/v3/me/status', { body: { status: next } })),
	});
	return (
		<div class="presence-picker">
			<label for="my-status" class="visually-hidden">
				{t('presence.mine')}
			</label>
			<PresenceDot status={change.isPending && change.variables ? change.variables : status} />
			<select
				id="my-status"
				value={change.isPending && change.variables ? change.variables : status}
				onChange={(e) => change.mutate(e.currentTarget.value as PresenceStatus)}
			>
				{STATUSES.map((s) => (
					<option key={s} value={s}>
						{t(`presence.${s}`)}
					</option>
				))}
			</select>
			{change.error && <Problem error={change.error} />}
		</div>
	);
}
