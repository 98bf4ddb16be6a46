import type { ComponentChildren } from 'preact';
import { Link, useLocation } from 'wouter-preact';
import { hasPermission, type Permission } from '../../../src/model/permissions';
import { useAlerts } from '../alerts';
import { type ConsoleSession, useSignOut } from '../data/session';
import { useFeedConnection } from '../feed';
import { t } from '../i18n';
import { SettingsNav } from '../pages/settings/nav';
import { AutomationNav } from './automation-nav';
import { FloodNotices } from './flood-notice';
import { PresencePicker, TeamPresence } from './presence';
import { ShortcutsHelp } from './shortcuts-help';
import { UnreadNav } from './unread-nav';

/**
 * The frame around every signed-in page: the navigation, who is signed in with their status, and signing
 * out. It holds the inbox feed open, which is what keeps the operator online for the team, and the alerts
 * (alerts.ts): the unread counts under the inbox, the tab's title, desktop notifications.
 */
export function Shell({ session, children }: { session: ConsoleSession; children: ComponentChildren }) {
	useFeedConnection();
	useAlerts();
	const [location] = useLocation();
	const current = (path: string) =>
		path === '/' ? location === '/' || location.startsWith('/conversations') : location.startsWith(path);
	const signOut = useSignOut();
	const can = (permission: Permission) => hasPermission(session.permissions, permission);
	const link = (path: string, label: string) => (
		<Link href={path} aria-current={current(path) ? 'page' : undefined}>
			{label}
		</Link>
	);
	return (
		<div class="shell">
			<nav aria-label={t('nav.main')}>
				<strong>{t('app.name')}</strong>
				{link('/', t('nav.inbox'))}
				<UnreadNav />
				{link('/contacts', t('nav.contacts'))}
				{can('crm:access') && link('/deals', t('nav.deals'))}
				{can('crm:access') && link('/campaigns', t('nav.campaigns'))}
				{link('/tasks', t('nav.tasks'))}
				{link('/canned-replies', t('nav.canned'))}
				{can('reports:view') && link('/reports', t('reports.title'))}
				{can('admin') && <AutomationNav current={current} />}
				<SettingsNav current={current} admin={can('admin')} />
				<TeamPresence />
				<div class="who">
					<div>{session.operator.name}</div>
					<div class="muted">{session.workspace.name}</div>
					<PresencePicker operatorId={session.operator.id} />
					<button type="button" onClick={signOut}>
						{t('nav.signOut')}
					</button>
					<ShortcutsHelp />
				</div>
			</nav>
			<main>{children}</main>
			{can('admin') && <FloodNotices />}
		</div>
	);
}
