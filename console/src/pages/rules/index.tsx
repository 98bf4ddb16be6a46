import { Route, Switch } from 'wouter-preact';
import type { ConsoleSession } from '../../data/session';
import { addWords } from '../../i18n';
import { AssignmentPage } from './assignment';
import { RuleEditorPage } from './rule-editor';
import { RulesListPage } from './rules-list';
import './rules.css';
import * as assignmentWords from '../../words/assignment';
import * as rulesWords from '../../words/rules';

// This chunk's words, added before anything in it renders.
addWords(rulesWords);
addWords(assignmentWords);

/**
 * Automation › Rules (the list, a rule's form and its execution log) and Automation › Assignment, a chunk of
 * their own. Every endpoint behind them needs admin, as the navigation that shows them does.
 */
export default function RulesPages(_: { session: ConsoleSession }) {
	return (
		<Switch>
			<Route path="/assignment" component={AssignmentPage} />
			<Route path="/rules/new">
				<RuleEditorPage id={null} />
			</Route>
			<Route path="/rules/:id">{(params) => <RuleEditorPage key={params.id} id={params.id} />}</Route>
			<Route component={RulesListPage} />
		</Switch>
	);
}
