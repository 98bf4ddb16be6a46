import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from './app-env';
import { bearerAuth, rateLimit } from './auth/middleware';
import { openDatabase, QueryCounter } from './db/client';
import { notFound, onError } from './lib/error-handler';
import { PayloadTooLarge } from './lib/errors';
import { answerMethodNotAllowed } from './lib/method-not-allowed';
import { consumeWorkflowRuns } from './queue/workflow-runs-consumer';
import { conversations } from './routes/conversations';
import { messages } from './routes/messages';
import { team } from './routes/team';
import { tokens } from './routes/tokens';
import { widget } from './routes/widget';
import { workflows } from './routes/workflows';

export { RateLimiter } from '../durable-objects/rate-limiter';

const app = new OpenAPIHono<AppEnv>();
app.onError(onError);
app.notFound(notFound);

app.get('/health', (c) => c.json({ status: 'ok' }));

app.doc31('/v3/openapi.json', {
	openapi: '3.1.0',
	info: {
		title: 'Parley API',
		version: '3.0.0',
		description:
			'Customer conversations: widget, inbox, messages and workflows. Authenticate with `Authorization: Bearer <Token V3>`.',
	},
});
app.openAPIRegistry.registerComponent('securitySchemes', 'TokenV3', { type: 'http', scheme: 'bearer' });

// Every other /v3 request (the document above answers first and public): a per-request D1 handle that
// counts its statements, then the token, then the caller's rate limit, then the body size.
app.use('/v3/*', async function database(c, next) {
	const queries = new QueryCounter();
	c.set('db', openDatabase(c.env.DB, queries));
	await next();
	// Lets a client (and the benchmark) see what a request cost in D1 statements.
	c.header('Server-Timing', `d1;desc="${queries.count} queries"`);
});
app.use('/v3/*', bearerAuth, rateLimit);
app.use(
	'/v3/*',
	bodyLimit({
		maxSize: 1024 * 1024,
		onError: () => {
			throw new PayloadTooLarge('A request body may be at most 1 MiB.');
		},
	}),
);

app.route('/v3/conversations', conversations);
app.route('/v3/messages', messages);
app.route('/v3/widget', widget);
app.route('/v3/team', team);
app.route('/v3/tokens', tokens);
app.route('/v3/workflows', workflows);
answerMethodNotAllowed(app);

export default {
	fetch: app.fetch,
	queue: consumeWorkflowRuns,
} satisfies ExportedHandler<Env>;
