import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
	GraphError,
	graphCall,
	graphMedia,
	MediaTooLarge,
	mediaUrlAllowed,
	openNumber,
} from '../src/domain/channels/whatsapp/graph';
import { NotFound } from '../src/lib/errors';
import { OutboundError } from '../src/lib/guarded-fetch';
import { DEFAULT_GRAPH_URL } from '../src/model/whatsapp';
import { db, seedWorkspace } from './factories';
import { PNG_1X1 } from './images';
import { fakeGraph, fakeMedia, fakeRequests, seedNumber } from './whatsapp-helpers';

describe('the fake Graph API', () => {
	it('refuses a Graph call without the token, or with another than the number’s, in Meta’s 190 body', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const bare = await fetch(`${env.WHATSAPP_GRAPH_URL}/v25.0/${number.phoneNumberId}/messages`, { method: 'POST' });
		expect(bare.status).toBe(401);
		const body = (await bare.json()) as { error: { code: number; type: string; message: string } };
		expect(body.error.code).toBe(190);
		expect(body.error.type).toBe('OAuthException');
		expect(body.error.message).toMatch(/^\(#190\) /);
		const mediaId = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png');
		const wrong = await fetch(`${env.WHATSAPP_GRAPH_URL}/v25.0/${mediaId}`, {
			headers: { Authorization: 'Bearer not-the-number-token' },
		});
		expect(wrong.status).toBe(401);
		const right = await fetch(`${env.WHATSAPP_GRAPH_URL}/v25.0/${mediaId}`, {
			headers: { Authorization: `Bearer ${number.accessToken}` },
		});
		expect(right.status).toBe(200);
		// The bytes URL needs the token too.
		const { url } = (await right.json()) as { url: string };
		expect((await fetch(url)).status).toBe(401);
	});

	it('lets a media URL expire', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const mediaId = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png', { ttlMs: -1 });
		const auth = { headers: { Authorization: `Bearer ${number.accessToken}` } };
		const { url } = (await (await fetch(`${env.WHATSAPP_GRAPH_URL}/v25.0/${mediaId}`, auth)).json()) as { url: string };
		expect((await fetch(url, auth)).status).toBe(404);
	});
});

describe('the Graph client', () => {
	it('opens a number only in its own workspace, with its credentials unsealed', async () => {
		const { workspaceId } = await seedWorkspace();
		const other = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const opened = await openNumber(env, db, workspaceId, number.id);
		expect(opened.accessToken).toBe(number.accessToken);
		expect(opened.appSecret).toBe(number.appSecret);
		await expect(openNumber(env, db, other.workspaceId, number.id)).rejects.toThrow(NotFound);
	});

	it('downloads media with the token through the deployment’s Graph URL', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const opened = await openNumber(env, db, workspaceId, number.id);
		const mediaId = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png');
		const file = await graphMedia(env, opened, mediaId, 1024);
		expect([...file.bytes]).toEqual([...PNG_1X1]);
		expect(file.mimeType).toBe('image/png');
		const requests = await fakeRequests(mediaId);
		expect(requests.map((r) => r.headers.authorization)).toEqual([
			`Bearer ${number.accessToken}`,
			`Bearer ${number.accessToken}`,
		]);
		expect(requests[0]?.path).toBe(`/${mediaId}`);
	});

	it('refuses media over the cap, from the descriptor’s size or while reading the bytes', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const opened = await openNumber(env, db, workspaceId, number.id);
		const declared = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png', { size: 5000 });
		await expect(graphMedia(env, opened, declared, 4096)).rejects.toThrow(MediaTooLarge);
		// The bytes URL was never asked for: the descriptor said enough.
		expect((await fakeRequests(declared)).map((r) => r.path)).toEqual([`/${declared}`]);
		const silent = await fakeMedia(number.phoneNumberId, PNG_1X1, 'image/png', { size: 5000, omitFileSize: true });
		await expect(graphMedia(env, opened, silent, 4096)).rejects.toThrow(MediaTooLarge);
	});

	it('gives Meta’s error as a GraphError with its code, title and verdict', async () => {
		const { workspaceId } = await seedWorkspace();
		const number = await seedNumber(workspaceId);
		const opened = await openNumber(env, db, workspaceId, number.id);
		await fakeGraph('/__fake/fail', {
			path: `/${number.phoneNumberId}/messages`,
			code: 130429,
			title: 'Rate limit hit',
			details: 'Cloud API message throughput has been reached.',
		});
		const error = await graphCall(env, opened, {
			method: 'POST',
			path: `/${number.phoneNumberId}/messages`,
			body: { messaging_product: 'whatsapp' },
		}).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(GraphError);
		expect(error).toMatchObject({ status: 400, code: 130429, title: 'Rate limit hit', retryable: true });
		expect((error as GraphError).details).toMatch(/throughput/);
		// A wrong token is Meta's 190: not retryable.
		const wrongToken = { ...opened, accessToken: 'wrong' };
		const refused = await graphCall(env, wrongToken, { method: 'GET', path: `/${number.phoneNumberId}` }).catch(
			(e: unknown) => e,
		);
		expect(refused).toMatchObject({ status: 401, code: 190, retryable: false });
	});

	it('calls a connection’s own Graph URL through the outbound guard', async () => {
		const { workspaceId } = await seedWorkspace();
		// Loopback is the guard's to refuse: a workspace cannot aim Parley at its own network.
		const number = await seedNumber(workspaceId, { graphUrl: 'http://127.0.0.1:9' });
		const opened = await openNumber(env, db, workspaceId, number.id);
		await expect(graphCall(env, opened, { method: 'GET', path: '/1' })).rejects.toThrow(OutboundError);
	});

	it('gives the token only to the Graph origin or Meta’s download hosts', () => {
		const row = { graphUrl: DEFAULT_GRAPH_URL };
		expect(mediaUrlAllowed(env, row, `${env.WHATSAPP_GRAPH_URL}/__media/1`)).toBe(true);
		expect(mediaUrlAllowed(env, row, 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1')).toBe(true);
		expect(mediaUrlAllowed(env, row, 'https://scontent.xx.fbcdn.net/v/t1')).toBe(true);
		expect(mediaUrlAllowed(env, row, 'http://lookaside.fbsbx.com/x')).toBe(false);
		expect(mediaUrlAllowed(env, row, 'https://fbsbx.com.evil.test/x')).toBe(false);
		expect(mediaUrlAllowed(env, row, 'https://evilfbsbx.com/x')).toBe(false);
		expect(mediaUrlAllowed(env, row, 'https://user:pw@lookaside.fbsbx.com/x')).toBe(false);
		expect(mediaUrlAllowed(env, row, 'not a url')).toBe(false);
	});
});
