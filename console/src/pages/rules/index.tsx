import { Route, Switch } from 'wouter-preact';
import { t } from '../../i18n';
import type { ConsoleSession } from '../../session';

/** Automation › Rules and Automation › Assignment (a chunk of their own). */
export default function RulesPages(_: { session: ConsoleSession }) {
	return (
		<Switch>
			<Route path="/assignment">
				<h1>{t('assignment.title')}</h1>
			</Route>
			<Route>
				<h1>{t('rules.title')}</h1>
			</Route>
		</Switch>
	);
}
