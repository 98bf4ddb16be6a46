import { Link } from 'wouter-preact';
import { t } from '../../i18n';
import './nav.css';

const PAGES = [
	['/settings/widget', 'settings.nav.widget'],
	['/settings/hours', 'settings.nav.hours'],
	['/settings/team', 'settings.nav.team'],
	['/settings/email', 'email.title'],
	['/settings/webhooks', 'settings.nav.webhooks'],
	['/settings/api', 'nav.settingsApi'],
] as const;

/** The Settings group of the navigation (admins: every settings endpoint needs admin). */
export function SettingsNav({ current }: { current: (path: string) => boolean }) {
	return (
		<div class="nav-group">
			<div class="nav-heading">{t('settings.nav')}</div>
			{PAGES.map(([path, key]) => (
				<Link key={path} href={path} aria-current={current(path) ? 'page' : undefined}>
					{t(key)}
				</Link>
			))}
		</div>
	);
}
