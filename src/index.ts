import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AppEnv } from './app-env';
import { operatorAuth } from './auth/middleware';
import { QueryCounter } from './db/client';
import { openTracedDatabase, timingEntries } from './db/server-timing';
import { BOOKMARK_HEADER, bindSessions, openRequestSessions } from './db/sessions';
import { directoryBinding, forEachShard, workspaceBinding } from './db/shards';
import { purgeExecutions, sweepWaiting } from './domain/automation/rules/waiting';
import { fireSchedules } from './domain/automation/scenarios/triggers';
import { sweepCampaigns } from './domain/campaigns/schedule';
import { receiveMail } from './domain/channels/email/inbound';
import { sweepUnanswered } from './domain/channels/email/notifications';
import { sweepMail } from './domain/channels/email/sender';
import { sweepWhatsapp } from './domain/channels/whatsapp/sender';
import { apiLog, purgeApiLogs } from './domain/platform/api-logs';
import { MAX_LOGO_BYTES } from './domain/widget/logo';
import { clientIp, enforceFloodLimit } from './domain/widget/visitor-limits';
import { sweepOutbox } from './events/outbox';
import { notFound, onError } from './http/error-handler';
import { httpsOnly } from './http/https-only';
import { answerMethodNotAllowed } from './http/method-not-allowed';
import { apiDocument } from './http/openapi-document';
import { requestLog } from './http/request-log';
import { PayloadTooLarge } from './lib/errors';
import { MAX_FILE_BYTES } from './model/files';
import { consumeApiLogs } from './queue/api-logs-consumer';
import { consumeCampaignSends } from './queue/campaign-sends-consumer';
import { consumeEvents } from './queue/events-consumer';
import { consumeDeadMail, consumeMail } from './queue/mail-consumer';
import { consumeDeadScenarioRuns, consumeScenarioRuns } from './queue/scenario-runs-consumer';
import { consumeWebhookDeliveries } from './queue/webhook-deliveries-consumer';
import { consumeDeadWhatsapp, consumeWhatsapp } from './queue/whatsapp-consumer';
import { assignmentRoutes } from './routes/assignment/assignment';
import { botsRoutes } from './routes/automation/bots';
import { conversationBots } from './routes/automation/conversation-bots';
import { automationRulesRoutes } from './routes/automation/rules';
import { scenariosRoutes } from './routes/automation/scenarios';
import { automationSettingsRoutes } from './routes/automation/settings';
import { templatesRoutes } from './routes/automation/templates';
import { workflows } from './routes/automation/workflows';
import { campaignsRoutes } from './routes/campaigns/campaigns';
import { cannedRepliesRoutes } from './routes/conversations/canned-replies';
import { conversations } from './routes/conversations/conversations';
import { conversationFilesRoutes, filesRoutes } from './routes/conversations/files';
import { live } from './routes/conversations/live';
import { messages } from './routes/conversations/messages';
import { conversationSearch } from './routes/conversations/search';
import { tagSubresource, tagsRoutes } from './routes/conversations/tags';
import { contactsRoutes } from './routes/crm/contacts';
import { customFieldsRoutes } from './routes/crm/custom-fields';
import { dealsRoutes, funnelsRoutes } from './routes/crm/deals';
import { noteSubresource } from './routes/crm/notes';
import { tasksRoutes } from './routes/crm/tasks';
import { inboundAddressesRoutes } from './routes/email/addresses';
import { emailDeliveriesRoutes } from './routes/email/deliveries';
import { conversationMailsRoutes, inboundMailsRoutes } from './routes/email/inbound';
import { mailLinks } from './routes/email/links';
import { emailSettingsRoutes } from './routes/email/settings';
import { apiLogsRoutes } from './routes/platform/api-logs';
import { consolePages } from './routes/platform/console';
import { docs } from './routes/platform/docs';
import { reportsRoutes } from './routes/reports/reports';
import { publicAuth, sessionRoutes } from './routes/team/auth';
import { directoryRoutes } from './routes/team/directory';
import { me } from './routes/team/me';
import { myAlerts } from './routes/team/my-alerts';
import { myNotifications } from './routes/team/my-notifications';
import { team } from './routes/team/team';
import { teamAccess } from './routes/team/team-access';
import { tokens } from './routes/team/tokens';
import { webhooksRoutes } from './routes/webhooks/webhooks';
import { whatsappNumbersRoutes } from './routes/whatsapp/numbers';
import { whatsappTemplatesRoutes } from './routes/whatsapp/templates';
import { whatsappWebhook } from './routes/whatsapp/webhook';
import { demo } from './routes/widget/demo';
import { publicConversations } from './routes/widget/public-conversations';
import { publicMessages } from './routes/widget/public-messages';
import { publicWidget } from './routes/widget/public-widget';
import { widget } from './routes/widget/widget';

export { ConversationRoom } from '../durable-objects/conversation-room';
export { RateLimiter } from '../durable-objects/rate-limiter';
export { TokenGate } from '../durable-objects/token-gate';
export { WorkspaceHub } from '../durable-objects/workspace-hub';

const app = new OpenAPIHono<AppEnv>();
app.onError(onError);
app.notFound(notFound);
// Every request: the log line for a failed or slow one, then HTTPS outside local development.
app.use('*', requestLog, httpsOnly);

app.get('/health', (c) => c.json({ status: 'ok' }));
// The static index page reaches the Worker first (wrangler.toml) only for the HTTPS check above.
app.get('/', (c) => c.env.ASSETS.fetch(c.req.raw));

// The API document and its interactive reference: public, built once per isolate (src/http/openapi-document.ts).
app.get('/v3/openapi.json', (c) => c.json(apiDocument(app)));
app.route('/docs', docs);

/**
 * A per-request D1 handle that counts its statements and times its round trips (src/db/server-timing.ts), over
 * the D1 sessions the request reads through: a replica for a `/v3` read, the primary otherwise (src/db/sessions.ts).
 */
const database: MiddlewareHandler<AppEnv> = async function database(c, next) {
	const queries = new QueryCounter();
	const env = c.env;
	const sessions = openRequestSessions(
		(workspaceId) => (workspaceId ? workspaceBinding(env, workspaceId) : directoryBinding(env)),
		c.req.raw,
	);
	// A widget request names its workspace in its path; an operator's is known once its caller is (operatorAuth).
	const widgetWorkspace = /^\/widget\/([A-Za-z0-9_-]{1,64})\//.exec(c.req.path)?.[1];
	if (widgetWorkspace) sessions.route(widgetWorkspace);
	const db = openTracedDatabase(sessions.d1, queries);
	bindSessions(db, sessions);
	c.set('db', db);
	await next();
	// Lets a client (and the benchmark) see what a request cost in D1 statements, and where its time went.
	c.header('Server-Timing', [`d1;desc="${queries.count} queries"`, ...timingEntries(db)].join(', '));
	// Sent back on the next request, it lets that one read a replica no older than what this one saw or wrote.
	const bookmark = sessions.bookmark();
	if (bookmark !== null) c.header(BOOKMARK_HEADER, bookmark);
};

const smallBodyLimit = bodyLimit({
	maxSize: 64 * 1024,
	onError: () => {
		throw new PayloadTooLarge('A widget request body may be at most 64 KiB.');
	},
});
const fileBodyLimit = bodyLimit({
	maxSize: MAX_FILE_BYTES,
	onError: () => {
		throw new PayloadTooLarge(`A file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MiB.`);
	},
});

const apiBodyLimit = bodyLimit({
	maxSize: 1024 * 1024,
	onError: () => {
		throw new PayloadTooLarge('A request body may be at most 1 MiB.');
	},
});
const logoBodyLimit = bodyLimit({
	maxSize: MAX_LOGO_BYTES,
	onError: () => {
		throw new PayloadTooLarge(`A logo may be at most ${MAX_LOGO_BYTES / 1024} KiB.`);
	},
});

// The public widget endpoints: open CORS (any site embeds the widget; no cookies), small bodies.
app.use(
	'/widget/*',
	cors({
		origin: '*',
		allowHeaders: ['Content-Type', 'Parley-Session', 'If-None-Match'],
		exposeHeaders: ['ETag', 'Retry-After'],
		maxAge: 86_400,
	}),
	async function widgetFloodLimit(c, next) {
		// `/widget/{workspaceId}/...`: each site's visitors behind one address have a budget of their own.
		// Cut to the longest id a route accepts, so a made-up path cannot make the key arbitrarily long.
		const [, , workspaceId = '', resource, more] = c.req.path.split('/');
		const isConfigRead = c.req.method === 'GET' && resource === 'config' && more === undefined;
		await enforceFloodLimit(
			c.env,
			workspaceId.slice(0, 64),
			clientIp(c.req.raw.headers),
			isConfigRead ? 'config' : 'other',
		);
		await next();
	},
	database,
	async function widgetBodyLimit(c, next) {
		// A file upload has its own, larger limit; every other widget body is small.
		const upload = c.req.method === 'POST' && c.req.path.endsWith('/files');
		return (upload ? fileBodyLimit : smallBodyLimit)(c, next);
	},
);

// Every other /v3 request (the document above answers first and public): D1, the API log (written once answered),
// then the token or the console's session, then the caller's rate limit, then the body size.
// A scenario's inbound webhook takes the webhook's own secret as well as a Token V3: it checks the token
// itself when one is sent (src/routes/automation/workflows.ts), so it answers before the bearer check below.
app.use('/v3/workflows/webhook/*', database);
app.route('/v3/workflows', workflows);
// Signing in to the console and setting a password: no credential yet, so they answer before the check below.
app.use('/v3/auth/sign-in', database, apiBodyLimit);
app.use('/v3/auth/set-password', database, apiBodyLimit);
app.route('/v3/auth', publicAuth);
// The links in mail (stop continuations, a large file): no credential but the signed token in the path.
app.use('/mail/*', database, apiBodyLimit);
app.route('/mail', mailLinks);
// Meta's webhooks of a connected WhatsApp number: no credential but Meta's signature (checked on the bytes).
app.use('/whatsapp/*', database, apiBodyLimit);
app.route('/whatsapp', whatsappWebhook);
app.use('/v3/*', database, apiLog, operatorAuth);
app.use('/v3/*', async function apiBodyLimits(c, next) {
	// The logo has a smaller limit of its own, stopped before its bytes are read whole; a file sent into a
	// conversation the files' larger one.
	if (c.req.path === '/v3/widget/logo') return logoBodyLimit(c, next);
	const upload = c.req.method === 'POST' && /^\/v3\/conversations\/[^/]+\/files$/.test(c.req.path);
	return (upload ? fileBodyLimit : apiBodyLimit)(c, next);
});

app.route('/v3/contacts', contactsRoutes);
app.route('/v3/contacts', tagSubresource('contact', 'contacts:write'));
app.route(
	'/v3/contacts',
	noteSubresource('contact', 'conversations:read', 'contacts:write', {
		listDescription: 'What operators wrote and transcripts automations saved, paged with an opaque cursor.',
		example: 'Prefers WhatsApp after 6 pm.',
	}),
);
app.route('/v3/tags', tagsRoutes);
app.route('/v3/custom-fields', customFieldsRoutes);
app.route('/v3/funnels', funnelsRoutes);
app.route('/v3/deals', dealsRoutes);
app.route(
	'/v3/deals',
	noteSubresource('deal', 'crm:access', 'crm:access', {
		listDescription: 'Paged with an opaque cursor.',
		example: 'Called: wants the proposal by Friday.',
	}),
);
app.route('/v3/tasks', tasksRoutes);
app.route('/v3/canned-replies', cannedRepliesRoutes);
app.route('/v3/campaigns', campaignsRoutes);
app.route('/v3/reports', reportsRoutes);
app.route('/v3/bots', botsRoutes);
app.route('/v3/scenarios', scenariosRoutes);
app.route('/v3/templates', templatesRoutes);
app.route('/v3/automation-rules', automationRulesRoutes);
app.route('/v3/automation-settings', automationSettingsRoutes);
app.route('/v3/assignment', assignmentRoutes);
app.route('/v3/webhooks', webhooksRoutes);
app.route('/v3/files', filesRoutes);
app.route('/v3/conversations', conversationSearch);
app.route('/v3/conversations', conversations);
app.route('/v3/conversations', conversationBots);
app.route('/v3/conversations', tagSubresource('conversation', 'messages:send'));
app.route('/v3/conversations', conversationMailsRoutes);
app.route('/v3/conversations', conversationFilesRoutes);
app.route('/v3/email/addresses', inboundAddressesRoutes);
app.route('/v3/email/inbound', inboundMailsRoutes);
app.route('/v3/whatsapp/numbers', whatsappNumbersRoutes);
app.route('/v3/messages', messages);
app.route('/v3/widget', widget);
app.route('/v3/team', team);
app.route('/v3/directory', directoryRoutes);
app.route('/v3/team', teamAccess);
app.route('/v3/auth', sessionRoutes);
app.route('/v3/api-logs', apiLogsRoutes);
app.route('/v3/tokens', tokens);
app.route('/v3/live', live);
app.route('/v3/me', me);
app.route('/v3/me', myNotifications);
app.route('/v3/me', myAlerts);
app.route('/v3/email', emailSettingsRoutes);
app.route('/v3/email', emailDeliveriesRoutes);
app.route('/v3/whatsapp', whatsappTemplatesRoutes);
app.route('/widget', publicWidget);
app.route('/widget', publicConversations);
app.route('/widget', publicMessages);
app.route('/demo', demo);
app.route('/console', consolePages);
answerMethodNotAllowed(app);

/** Queue names as wrangler.toml declares them: one consumer function per queue. */
const CONSUMERS: Record<string, (batch: MessageBatch<unknown>, env: Env) => Promise<void>> = {
	'parley-api-logs': consumeApiLogs,
	'parley-events': consumeEvents,
	'parley-campaign-sends': consumeCampaignSends,
	'parley-scenario-runs': consumeScenarioRuns,
	'parley-scenario-runs-dlq': consumeDeadScenarioRuns,
	'parley-webhook-deliveries': consumeWebhookDeliveries,
	'parley-mail': consumeMail,
	'parley-mail-dlq': consumeDeadMail,
	'parley-whatsapp': consumeWhatsapp,
	'parley-whatsapp-dlq': consumeDeadWhatsapp,
};

export default {
	fetch: app.fetch,
	async queue(batch, env) {
		const consume = CONSUMERS[batch.queue];
		if (!consume) throw new Error(`No consumer for queue ${batch.queue}`);
		await consume(batch, env);
	},
	// Mail Email Routing hands the Worker (src/domain/channels/email/inbound.ts): kept, then threaded or posted.
	async email(message, env) {
		await receiveMail(env, message);
	},
	async scheduled(_controller, env) {
		// The minute's housekeeping crosses workspaces: it runs on every shard (src/db/shards.ts).
		await forEachShard(env, (db) =>
			Promise.all([
				sweepOutbox(env, db),
				fireSchedules(env, db),
				sweepWaiting(env, db),
				purgeExecutions(db),
				sweepCampaigns(env, db),
				purgeApiLogs(db),
				sweepMail(env, db),
				sweepWhatsapp(env, db),
				sweepUnanswered(env, db),
			]),
		);
	},
} satisfies ExportedHandler<Env>;
