import { Link } from 'wouter-preact';
import { t } from '../i18n';

const PAGES = [
	['/bots', 'builder.bots'],
	['/scenarios', 'builder.scenarios'],
	['/rules', 'rules.title'],
	['/assignment', 'assignment.title'],
] as const;

/** The Automation group of the navigation (admins: every automation endpoint needs admin). */
export function AutomationNav({ current }: { current: (path: string) => boolean }) {
	return (
		<div class="nav-group">
			<div class="nav-heading">{t('automation.nav')}</div>
			{PAGES.map(([path, key]) => (
				<Link key={path} href={path} aria-current={current(path) ? 'page' : undefined}>
					{t(key)}
				</Link>
			))}
		</div>
	);
}
