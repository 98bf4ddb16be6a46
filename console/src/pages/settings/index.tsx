import { Redirect, Route, Switch } from 'wouter-preact';
import type { ConsoleSession } from '../../data/session';
import { addWords } from '../../i18n';
import * as objectsWords from '../../words/objects';
import { CustomFieldsPage } from './custom-fields';
import { EmailSettingsPage } from './email';
import { HoursPage } from './hours';
import { NotificationsPage } from './notifications';
import { TeamPage } from './team';
import { WebhooksPage } from './webhooks';
import { WhatsappSettingsPage } from './whatsapp';
import { WidgetSettingsPage } from './widget';
// One stylesheet a page, in this order: the shared rules, each page's, then the narrow screens' over them all.
import './settings.css';
import './widget.css';
import './hours.css';
import './team.css';
import './webhooks.css';
import './email.css';
import './responsive.css';

// The words of the pages that manage objects (custom fields) come with this chunk.
addWords(objectsWords);

/**
 * The settings pages (the workspace's for admins, Notifications for every member), a chunk of their own that the console loads the first time one is opened, so
 * the inbox's first load does not carry them. Settings › API stays in the main bundle (src/app.tsx).
 */
export default function SettingsPages({ session }: { session: ConsoleSession }) {
	return (
		<Switch>
			<Route path="/settings/widget">
				<WidgetSettingsPage session={session} />
			</Route>
			<Route path="/settings/hours" component={HoursPage} />
			<Route path="/settings/team">
				<TeamPage session={session} />
			</Route>
			<Route path="/settings/email" component={EmailSettingsPage} />
			<Route path="/settings/webhooks" component={WebhooksPage} />
			<Route path="/settings/custom-fields" component={CustomFieldsPage} />
			<Route path="/settings/whatsapp" component={WhatsappSettingsPage} />
			<Route path="/settings/notifications" component={NotificationsPage} />
			<Route>
				<Redirect to="/" />
			</Route>
		</Switch>
	);
}
