import { useState } from 'preact/hooks';
import { useMe, useRegenerateToken } from '../data/me';
import type { ConsoleSession } from '../data/session';
import { t } from '../i18n';
import { Problem } from '../ui/problem';
import { ApiLog } from './api-log';

/**
 * Settings > Integrations > API: the operator's Token V3 (generate, regenerate: the new one shown once, the old
 * one refused at once), its age with the 90-day reminder, and the workspace's API log.
 */
export default function ApiSettings({ session }: { session: ConsoleSession }) {
	const me = useMe();
	const [issued, setIssued] = useState<string | null>(null);
	const regenerate = useRegenerateToken();
	const token = me.data?.token ?? null;
	return (
		<div class="page">
			<h1>{t('api.title')}</h1>
			<h2>{t('api.token')}</h2>
			{me.error && <Problem error={me.error} retry={() => me.refetch()} />}
			{me.data &&
				(token ? (
					<p>
						{t('api.age', { days: token.ageDays, hint: token.hint })}{' '}
						{token.rotationDue && <strong class="notice">{t('api.rotate')}</strong>}
					</p>
				) : (
					<p class="muted">{t('api.noToken')}</p>
				))}
			{issued && (
				<div>
					<p class="notice" role="status">
						{t('api.shownOnce')}
					</p>
					<p class="token" data-testid="issued-token">
						{issued}
					</p>
					<button type="button" onClick={() => navigator.clipboard?.writeText(issued)}>
						{t('common.copy')}
					</button>
				</div>
			)}
			<p>
				<button
					type="button"
					class="primary"
					disabled={regenerate.isPending || !me.data}
					onClick={() => {
						if (!token || confirm(t('api.regenerateConfirm')))
							regenerate.mutate(undefined, { onSuccess: (answer) => setIssued(answer.token) });
					}}
				>
					{token ? t('api.regenerate') : t('api.generate')}
				</button>
			</p>
			{regenerate.error && <Problem error={regenerate.error} />}

			{session.permissions.includes('admin') && <ApiLog />}
		</div>
	);
}
