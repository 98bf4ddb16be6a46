import { lazy, Suspense } from 'preact/compat';
import { Redirect, Route, Switch } from 'wouter-preact';
import { type ConsoleSession, useSession } from './data/session';
import { t } from './i18n';
import { Inbox } from './pages/inbox';
import { CannedReplies } from './pages/records/canned-replies';
import { Contacts } from './pages/records/contacts';
import { DealsBoard } from './pages/records/deals';
import { TasksToday } from './pages/records/tasks';
import { SetPassword } from './pages/set-password';
import { SignIn } from './pages/sign-in';
import { Problem } from './ui/problem';
import { Shell } from './ui/shell';

const SettingsPages = lazy(() => import('./pages/settings'));
const ApiSettings = lazy(() => import('./pages/api-settings'));
const BuilderPages = lazy(() => import('./pages/builder'));
const RulesPages = lazy(() => import('./pages/rules'));
const ReportsPage = lazy(() => import('./pages/reports'));
const ObjectPages = lazy(() => import('./pages/objects'));

/** The set-password page is open to anyone with a link; every other page needs a session (else: sign in). */
export function App() {
	const session = useSession();
	let signedIn: preact.JSX.Element;
	if (session.isPending) signedIn = <p class="centered muted">{t('common.loading')}</p>;
	else if (session.error)
		signedIn = (
			<div class="centered">
				<Problem error={session.error} retry={() => session.refetch()} />
			</div>
		);
	else if (!session.data) signedIn = <SignIn />;
	else signedIn = <Pages session={session.data} />;
	return (
		<Switch>
			<Route path="/set-password" component={SetPassword} />
			<Route>{signedIn}</Route>
		</Switch>
	);
}

function Pages({ session }: { session: ConsoleSession }) {
	return (
		<Shell session={session}>
			<Switch>
				<Route path="/">
					<Inbox session={session} />
				</Route>
				<Route path="/conversations/:id">{(params) => <Inbox session={session} openId={params.id} />}</Route>
				<Route path="/contacts">
					<Contacts session={session} />
				</Route>
				<Route path="/contacts/:id">{(params) => <Contacts openId={params.id} session={session} />}</Route>
				<Route path="/deals" component={DealsBoard} />
				<Route path="/deals/funnels">
					<Later>
						<ObjectPages session={session} />
					</Later>
				</Route>
				<Route path="/campaigns/*?">
					<Later>
						<ObjectPages session={session} />
					</Later>
				</Route>
				<Route path="/tasks" component={TasksToday} />
				<Route path="/canned-replies">
					<CannedReplies session={session} />
				</Route>
				<Route path="/settings/api">
					<Later>
						<ApiSettings session={session} />
					</Later>
				</Route>
				<Route path="/settings/*">
					<Later>
						<SettingsPages session={session} />
					</Later>
				</Route>
				<Route path="/reports">
					<Later>
						<ReportsPage session={session} />
					</Later>
				</Route>
				<Route path="/bots/*?">
					<Later>
						<BuilderPages session={session} />
					</Later>
				</Route>
				<Route path="/scenarios/*?">
					<Later>
						<BuilderPages session={session} />
					</Later>
				</Route>
				<Route path="/rules/*?">
					<Later>
						<RulesPages session={session} />
					</Later>
				</Route>
				<Route path="/assignment">
					<Later>
						<RulesPages session={session} />
					</Later>
				</Route>
				<Route>
					<Redirect to="/" />
				</Route>
			</Switch>
		</Shell>
	);
}

/** A page in a chunk of its own, loaded the first time it is opened, so the inbox's first load does not carry it. */
function Later({ children }: { children: preact.ComponentChildren }) {
	return <Suspense fallback={<p class="centered muted">{t('common.loading')}</p>}>{children}</Suspense>;
}
