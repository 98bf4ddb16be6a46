import { Route, Switch } from 'wouter-preact';
import { t } from '../../i18n';
import type { ConsoleSession } from '../../session';

/** The bot and scenario builders (a chunk of their own). */
export default function BuilderPages(_: { session: ConsoleSession }) {
	return (
		<Switch>
			<Route path="/scenarios/*?">
				<h1>{t('builder.scenarios')}</h1>
			</Route>
			<Route>
				<h1>{t('builder.bots')}</h1>
			</Route>
		</Switch>
	);
}
