import { Link } from 'wouter-preact';
import { t } from '../../i18n';
import './nav.css';

/** The workspace's settings: admins only, as every endpoint behind them. */
const ADMIN_PAGES = [
	['/settings/widget', 'settings.nav.widget'],
	['/settings/hours', 'settings.nav.hours'],
	['/settings/team', 'settings.nav.team'],
	['/settings/custom-fields', 'settings.nav.customFields'],
	['/settings/email', 'email.title'],
	['/settings/whatsapp', 'whatsapp.title'],
	['/settings/webhooks', 'settings.nav.webhooks'],
	['/settings/api', 'nav.settingsApi'],
] as const;

/** Each member's own settings: every member sees them. */
const OWN_PAGES = [['/settings/notifications', 'notifications.title']] as const;

/** The Settings group of the navigation: a member's own settings for all, the workspace's for admins. */
export function SettingsNav({ current, admin }: { current: (path: string) => boolean; admin: boolean }) {
	const pages = admin ? [...ADMIN_PAGES, ...OWN_PAGES] : OWN_PAGES;
	return (
		<div class="nav-group">
			<div class="nav-heading">{t('settings.nav')}</div>
			{pages.map(([path, key]) => (
				<Link key={path} href={path} aria-current={current(path) ? 'page' : undefined}>
					{t(key)}
				</Link>
			))}
		</div>
	);
}
