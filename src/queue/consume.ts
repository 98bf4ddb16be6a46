import type { z } from '@hono/zod-openapi';

/**
 * The loop every Queue consumer runs: parse each message with `schema`, hand it to `handle`, ack on success,
 * retry with backoff (2^attempts s, at most 5 min) on failure. A message that does not parse is acked and
 * logged: retrying it could never succeed.
 */
export async function consumeEach<T>(
	batch: MessageBatch<unknown>,
	schema: z.ZodType<T>,
	handle: (body: T) => Promise<void>,
	what: string,
): Promise<void> {
	for (const message of batch.messages) {
		const parsed = schema.safeParse(message.body);
		if (!parsed.success) {
			console.error(`dropping malformed ${what}`, message.id);
			message.ack();
			continue;
		}
		try {
			await handle(parsed.data);
			message.ack();
		} catch (error) {
			console.error(`${what} failed, will retry`, message.id, error);
			message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts) });
		}
	}
}
