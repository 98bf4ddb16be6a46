import { useQueryClient } from '@tanstack/react-query';
import type { ComponentChildren } from 'preact';
import { Link, useLocation } from 'wouter-preact';
import { api } from '../api/client';
import { t } from '../i18n';
import { SettingsNav } from '../pages/settings/nav';
import type { ConsoleSession } from '../session';

/** The frame around every signed-in page: the navigation, who is signed in, and signing out. */
export function Shell({ session, children }: { session: ConsoleSession; children: ComponentChildren }) {
	const [location] = useLocation();
	const client = useQueryClient();
	const current = (path: string) =>
		path === '/' ? location === '/' || location.startsWith('/conversations') : location.startsWith(path);
	const signOut = async () => {
		await api.DELETE('/v3/auth/session');
		client.setQueryData(['session'], null);
	};
	const isAdmin = session.permissions.includes('admin');
	return (
		<div class="shell">
			<nav aria-label={t('nav.main')}>
				<strong>{t('app.name')}</strong>
				<Link href="/" aria-current={current('/') ? 'page' : undefined}>
					{t('nav.inbox')}
				</Link>
				{isAdmin && <SettingsNav current={current} />}
				<div class="who">
					<div>{session.operator.name}</div>
					<div class="muted">{session.workspace.name}</div>
					<button type="button" onClick={signOut}>
						{t('nav.signOut')}
					</button>
				</div>
			</nav>
			<main>{children}</main>
		</div>
	);
}
