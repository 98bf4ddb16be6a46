// See wrangler.toml. POST / with a JSON array of delivery ids puts `{ deliveryId }` on the mail Queue for each,
// in order, exactly the message Parley's outbox (src/domain/channels/email/outbox.ts) sends. GET /health
// answers 200 so that the bench's wrangler starter knows it is up.
const BATCH = 100;

export default {
	async fetch(request, env) {
		const { pathname } = new URL(request.url);
		if (request.method === 'GET' && pathname === '/health') return new Response('ok');
		if (request.method !== 'POST' || pathname !== '/') return new Response('not found', { status: 404 });
		const ids = await request.json();
		if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
			return new Response('expected a JSON array of delivery ids', { status: 400 });
		}
		// One batch at a time, in order: the queue receives the messages in the order given.
		for (let i = 0; i < ids.length; i += BATCH) {
			const messages = ids.slice(i, i + BATCH).map((deliveryId) => ({ body: { deliveryId }, contentType: 'json' }));
			await env.MAIL_OUT.sendBatch(messages);
		}
		return Response.json({ enqueued: ids.length });
	},
};
