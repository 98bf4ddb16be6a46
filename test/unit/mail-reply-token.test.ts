import { describe, expect, it } from 'vitest';
import { parseReplyLocalPart, replyLocalPart, verifyReplyAddress } from '../../src/auth/mail-reply-token';
import { newId } from '../../src/lib/ids';

const ENV = { PARLEY_SECRET: 'a-deployment-secret-of-at-least-32-bytes!' };
const OTHER_ENV = { PARLEY_SECRET: 'another-deployment-secret-of-32-bytes!!!' };

describe('the reply address of a conversation', () => {
	it('names its conversation, verifies for its workspace and fits a local part', async () => {
		const conversationId = newId('conv');
		const local = await replyLocalPart(ENV, 'ws_a', conversationId);
		expect(local.length).toBeLessThanOrEqual(64);
		expect(local).toMatch(/^reply\+[0-9a-z]+\.[0-9a-z]+$/);
		const parts = parseReplyLocalPart(local);
		expect(parts?.conversationId).toBe(conversationId);
		expect(parts && (await verifyReplyAddress(ENV, 'ws_a', parts))).toBe(true);
		// A mail system that upper-cases the local part changes nothing.
		const shouted = parseReplyLocalPart(local.toUpperCase());
		expect(shouted && (await verifyReplyAddress(ENV, 'ws_a', shouted))).toBe(true);
	});

	it('does not verify for another workspace, another conversation, another secret or an altered signature', async () => {
		const conversationId = newId('conv');
		const parts = parseReplyLocalPart(await replyLocalPart(ENV, 'ws_a', conversationId));
		if (!parts) throw new Error('unparsed');
		expect(await verifyReplyAddress(ENV, 'ws_b', parts)).toBe(false);
		expect(await verifyReplyAddress(OTHER_ENV, 'ws_a', parts)).toBe(false);
		const otherConversation = { ...parts, conversationId: newId('conv') };
		expect(await verifyReplyAddress(ENV, 'ws_a', otherConversation)).toBe(false);
		const last = parts.signature.at(-1) === '0' ? '1' : '0';
		expect(await verifyReplyAddress(ENV, 'ws_a', { ...parts, signature: parts.signature.slice(0, -1) + last })).toBe(
			false,
		);
	});

	it('is not read from addresses that are not reply addresses', () => {
		for (const local of [
			'support',
			'reply+',
			'reply+abc.def',
			`reply+${'u'.repeat(26)}.${'0'.repeat(26)}`,
			'reply-x.y',
		]) {
			expect(parseReplyLocalPart(local)).toBeNull();
		}
	});
});
