import { useUnreadCounts } from '../data/alerts';
import { t } from '../i18n';

/** The navigation's unread counts per view of the inbox, kept live by the feed (alerts.ts). */
export function UnreadNav() {
	const counts = useUnreadCounts();
	const views = ['mine', 'unassigned', 'all'] as const;
	return (
		<ul class="unread-nav" aria-label={t('unread.views')}>
			{views.map((view) => {
				const n = counts.data?.[view] ?? 0;
				return (
					<li key={view} class={`view unread-${view}${n > 0 ? ' has-unread' : ''}`}>
						<span>{t(`unread.${view}`)}</span>
						<span class="count">
							{n}
							<span class="visually-hidden"> {t('unread.count', { n })}</span>
						</span>
					</li>
				);
			})}
		</ul>
	);
}
