// The demo workspace's WhatsApp number for `npm run dev`: connected through the API once wrangler answers (so
// its token and app secret are sealed by the Worker itself, under .dev.vars' PARLEY_SECRET), its app secret
// written to .wrangler/whatsapp-demo.json (git-ignored) for `npm run whatsapp:demo`, which signs webhooks with it.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

/** Meta's sample ids from its documentation: any digits do against the fake Graph API. */
export const DEMO_NUMBER = {
	phoneNumberId: '106540352242922',
	businessAccountId: '102290129340398',
	displayPhoneNumber: '+1 555 078 3881',
};

const FILE = new URL('../.wrangler/whatsapp-demo.json', import.meta.url);

/** What `connectDemoNumber` wrote: `{ numberId, phoneNumberId, appSecret }`, or null before the first dev run. */
export function readDemoNumber() {
	return existsSync(FILE) ? JSON.parse(readFileSync(FILE, 'utf8')) : null;
}

/**
 * Connects the demo number (or, connected before, gives it a fresh token and app secret, since the sealed
 * ones cannot be read back), pins its token in the fake Graph API and writes the app secret down.
 * Waits up to a minute for wrangler to answer.
 */
export async function connectDemoNumber(baseUrl, token, fakeGraphUrl) {
	const deadline = Date.now() + 60_000;
	while (
		!(await fetch(`${baseUrl}/health`).then(
			(r) => r.ok,
			() => false,
		))
	) {
		if (Date.now() > deadline) throw new Error(`${baseUrl}/health did not answer within a minute`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	const call = async (method, path, body) => {
		const res = await fetch(`${baseUrl}${path}`, {
			method,
			headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const answer = await res.json();
		if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${answer.message}`);
		return answer;
	};
	const accessToken = `EAAGdemo${randomBytes(16).toString('hex')}`;
	const appSecret = randomBytes(16).toString('hex');
	const { data } = await call('GET', '/v3/whatsapp/numbers');
	const known = data.find((n) => n.phoneNumberId === DEMO_NUMBER.phoneNumberId);
	const number = known
		? await call('PATCH', `/v3/whatsapp/numbers/${known.id}`, { accessToken, appSecret })
		: await call('POST', '/v3/whatsapp/numbers', { ...DEMO_NUMBER, accessToken, appSecret });
	await fetch(`${fakeGraphUrl}/__fake/numbers`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ phoneNumberId: DEMO_NUMBER.phoneNumberId, accessToken }),
	});
	mkdirSync(new URL('../.wrangler/', import.meta.url), { recursive: true });
	const written = { numberId: number.id, phoneNumberId: DEMO_NUMBER.phoneNumberId, appSecret, baseUrl };
	writeFileSync(FILE, `${JSON.stringify(written, null, '\t')}\n`, { mode: 0o600 });
	return written;
}
