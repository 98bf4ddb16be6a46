/**
 * The pages that manage the workspace's objects beyond the inbox: the deals' funnels and stages, and the
 * campaigns. A chunk of its own, loaded the first time one is opened, with its words.
 */
import { Redirect, Route, Switch } from 'wouter-preact';
import { hasPermission } from '../../../../src/model/permissions';
import type { ConsoleSession } from '../../data/session';
import { addWords } from '../../i18n';
import * as objectsWords from '../../words/objects';
import { CampaignPage, CampaignsPage } from './campaigns';
import { FunnelsPage } from './funnels';
import '../settings/settings.css';
import '../settings/team.css';
import './objects.css';

addWords(objectsWords);

export default function ObjectPages({ session }: { session: ConsoleSession }) {
	const admin = hasPermission(session.permissions, 'admin');
	return (
		<Switch>
			<Route path="/deals/funnels" component={FunnelsPage} />
			<Route path="/campaigns">
				<CampaignsPage admin={admin} />
			</Route>
			<Route path="/campaigns/:id">{(params) => <CampaignPage id={params.id} admin={admin} />}</Route>
			<Route>
				<Redirect to="/" />
			</Route>
		</Switch>
	);
}
