import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { whatsappDeliveries, whatsappNumbers } from '../src/db/schema';
import { enqueueWhatsapp } from '../src/domain/channels/whatsapp/outbox';
import { paceRule } from '../src/engines/whatsapp/pace';
import { db, seedWorkspace } from './factories';
import { fakeGraph, seedNumber } from './whatsapp-helpers';
import { fakeMessages, registerTemplates, uniqueWaId } from './whatsapp-outbound-helpers';

/** The most timestamps any window of `spanMs` holds. */
function busiest(times: number[], spanMs: number): number {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	for (let i = 0, j = 0; i < sorted.length; i++) {
		while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= spanMs) j++;
		most = Math.max(most, i - j + 1);
	}
	return most;
}

describe('the sending pace', () => {
	it('never sends a number more than its messages a second, counted by the fake over any second', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		// A number allowed 10 a second (Meta's 80, scaled down so the test takes seconds, not minutes).
		await db.update(whatsappNumbers).set({ messagesPerSecond: 10 }).where(eq(whatsappNumbers.id, number.id));
		await fakeGraph('/__fake/settings', { phoneNumberId: number.phoneNumberId, messagesPerSecond: 10 });
		await registerTemplates(number, [{ name: 'ping', language: 'en' }]);
		const total = 30;
		for (let i = 0; i < total; i++) {
			await enqueueWhatsapp(env, db, {
				workspaceId,
				numberId: number.id,
				kind: 'campaign',
				dedupeKey: `test:pace:${i}`,
				recipient: uniqueWaId(),
				template: { name: 'ping', language: 'en', variables: [] },
			});
		}
		const sentCount = async () =>
			(await db.select().from(whatsappDeliveries).where(eq(whatsappDeliveries.numberId, number.id))).filter(
				(d) => d.status === 'sent',
			).length;
		await expect.poll(sentCount, { timeout: 25_000, interval: 250 }).toBe(total);
		const { messages, refused } = await fakeMessages(number.phoneNumberId);
		expect(refused).toEqual([]);
		expect(messages).toHaveLength(total);
		const times = messages.map((m) => m.at);
		// Paced at Parley's share of the number's rate: never above 10 in any second, the fake's own count.
		const pace = 1000 / paceRule(10).intervalMs;
		expect(busiest(times, 1000)).toBeLessThanOrEqual(10);
		// And paced, not merely lucky: 30 at the pace take at least 29 intervals.
		expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(Math.floor((29 / pace) * 1000) - 50);
	});
});

describe('the fake’s limits (what the pace keeps under)', () => {
	async function burst(phoneNumberId: string, accessToken: string, recipients: string[]) {
		return Promise.all(
			recipients.map(async (to) => {
				const res = await fetch(`${env.WHATSAPP_GRAPH_URL}/v25.0/${phoneNumberId}/messages`, {
					method: 'POST',
					headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
					body: JSON.stringify({ messaging_product: 'whatsapp', to: `+${to}`, type: 'text', text: { body: 'hi' } }),
				});
				return res.ok ? 0 : ((await res.json()) as { error: { code: number } }).error.code;
			}),
		);
	}

	it('answers 130429 over the number’s rate and 131056 over one customer’s pair rate', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		await fakeGraph('/__fake/settings', { phoneNumberId: number.phoneNumberId, messagesPerSecond: 5 });
		const codes = await burst(number.phoneNumberId, number.accessToken, Array.from({ length: 8 }, uniqueWaId));
		expect(codes.filter((c) => c === 0)).toHaveLength(5);
		expect(codes.filter((c) => c === 130429)).toHaveLength(3);

		const other = await seedNumber(workspaceId);
		await fakeGraph('/__fake/settings', { phoneNumberId: other.phoneNumberId, messagesPerSecond: 1000 });
		const one = uniqueWaId();
		const pair = await burst(
			other.phoneNumberId,
			other.accessToken,
			Array.from({ length: 46 }, () => one),
		);
		// Meta's burst of 45 to one customer, then one every 6 s.
		expect(pair.filter((c) => c === 0)).toHaveLength(45);
		expect(pair.filter((c) => c === 131056)).toHaveLength(1);
	});
});
