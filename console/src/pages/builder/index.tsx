import { Route, Switch } from 'wouter-preact';
import { bots, scenarios } from '../../data/documents';
import type { ConsoleSession } from '../../data/session';
import { addWords } from '../../i18n';
import { Editor } from './editor';
import { DocumentList } from './list';
// The page's layout, then the canvas, the panel's forms, the simulator's and versions' lists.
import './builder.css';
import './canvas.css';
import './panel.css';
import './simulator.css';
import * as assignmentWords from '../../words/assignment';
import * as builderWords from '../../words/builder';
import * as builderFieldWords from '../../words/builder-fields';
import * as objectsWords from '../../words/objects';
import * as rulesWords from '../../words/rules';

// This chunk's words, added before anything in it renders.
addWords(builderWords);
addWords(builderFieldWords);
addWords(rulesWords);
addWords(assignmentWords);
addWords(objectsWords);

/**
 * The bot and scenario builders: a chunk of their own (the canvas library comes with them), loaded the first
 * time one is opened.
 */
export default function BuilderPages(_: { session: ConsoleSession }) {
	return (
		<div class="builder-page">
			<Switch>
				<Route path="/bots/:id">{(params) => <Editor key={params.id} documents={bots} id={params.id} />}</Route>
				<Route path="/scenarios/:id">
					{(params) => <Editor key={params.id} documents={scenarios} id={params.id} />}
				</Route>
				<Route path="/scenarios">
					<DocumentList kind="scenario" />
				</Route>
				<Route>
					<DocumentList kind="bot" />
				</Route>
			</Switch>
		</div>
	);
}
