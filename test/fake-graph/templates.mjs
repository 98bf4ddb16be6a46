/**
 * The fake Graph API's message templates (Meta's "Template management", WHATSAPP-REF §6): the templates a
 * business account has, registered by the tests, listed as Meta lists them (`GET /{waba_id}/message_templates`
 * with `fields`, `limit`, `status` and cursor paging: `paging.cursors.after` and a `paging.next` URL while more
 * remain), and looked up by the messages endpoint when a template message is sent.
 *
 * Control endpoint (`controls`): `POST /__fake/templates {businessAccountId, phoneNumberId?, templates: [{name, language,
 * status?, category?, parameter_format?, components}]}` adds (or replaces, by name and language) the account's
 * templates; `phoneNumberId` names a number of that account, whose template messages are then checked
 * against them.
 */

const LIST = /^\/(\d+)\/message_templates$/;
const DEFAULT_LIMIT = 25;

function state(fake) {
	fake.state.templates ??= { byAccount: new Map(), accountOf: new Map() };
	return fake.state.templates;
}

export function reset(fake) {
	fake.state.templates = undefined;
}

/**
 * The sample template Meta gives every new WhatsApp Business Account: what an account the tests registered
 * nothing for has, so `npm run dev` and the docs' examples can send a template without setting one up.
 */
export const HELLO_WORLD = {
	id: '1000000000000001',
	name: 'hello_world',
	language: 'en_US',
	status: 'APPROVED',
	category: 'UTILITY',
	parameter_format: 'POSITIONAL',
	components: [
		{ type: 'HEADER', format: 'TEXT', text: 'Hello World' },
		{
			type: 'BODY',
			text: 'Welcome and congratulations!! This message demonstrates your ability to send a WhatsApp message notification from the Cloud API, hosted by Meta. Thank you for taking the time to test with us.',
		},
		{ type: 'FOOTER', text: 'WhatsApp Business Platform sample message' },
	],
};

/** An account's templates: those registered for it, else Meta's sample one. */
function templatesOf(fake, account) {
	const registered = account === undefined ? undefined : state(fake).byAccount.get(account);
	return registered?.length ? registered : [HELLO_WORLD];
}

/** The template `name` in `language` of the number's account (see `templatesOf`), or undefined. */
export function templateOf(fake, phoneNumberId, name, language) {
	const account = state(fake).accountOf.get(phoneNumberId);
	return templatesOf(fake, account).find((t) => t.name === name && t.language === language);
}

/** The `{{1}}` or `{{name}}` placeholders of a template component's text, in order, without repeats. */
export function placeholders(text) {
	return [...new Set([...String(text ?? '').matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1]))];
}

export function controls(fake) {
	return [
		{
			method: 'POST',
			path: '/__fake/templates',
			handle({ res, json }) {
				if (typeof json.businessAccountId !== 'string' || !Array.isArray(json.templates)) {
					return fake.send(res, 400, { error: 'businessAccountId (string) and templates (array) are required' });
				}
				const { byAccount, accountOf } = state(fake);
				const list = byAccount.get(json.businessAccountId) ?? [];
				for (const template of json.templates) {
					const kept = list.filter((t) => !(t.name === template.name && t.language === template.language));
					kept.push({
						id: String(Math.floor(Math.random() * 1e15)),
						status: 'APPROVED',
						category: 'UTILITY',
						parameter_format: 'POSITIONAL',
						components: [],
						...template,
					});
					list.splice(0, list.length, ...kept);
				}
				byAccount.set(json.businessAccountId, list);
				if (json.phoneNumberId) accountOf.set(String(json.phoneNumberId), json.businessAccountId);
				return fake.send(res, 200, { ok: true, count: list.length });
			},
		},
	];
}

export function routes(fake) {
	return [
		{
			method: 'GET',
			path: LIST,
			handle({ res, url, match }) {
				const account = match[1];
				const limit = Number(url.searchParams.get('limit') ?? DEFAULT_LIMIT);
				if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
					return fake.send(res, 400, fake.metaError(100, 'Invalid parameter', 'limit must be 1 to 1000.'));
				}
				const status = url.searchParams.get('status');
				const fields = url.searchParams.get('fields')?.split(',').filter(Boolean);
				const all = templatesOf(fake, account).filter((t) => !status || t.status === status.toUpperCase());
				// Cursors are opaque to the caller: here, the position, base64-encoded as Meta's look.
				const after = url.searchParams.get('after');
				const start = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) : 0;
				if (!Number.isInteger(start) || start < 0) {
					return fake.send(res, 400, fake.metaError(100, 'Invalid parameter', 'Invalid cursor.'));
				}
				const page = all.slice(start, start + limit);
				const cursor = (n) => Buffer.from(String(n)).toString('base64url');
				const data = page.map((t) =>
					fields ? Object.fromEntries(Object.entries(t).filter(([k]) => k === 'id' || fields.includes(k))) : t,
				);
				const paging = { cursors: { before: cursor(start), after: cursor(start + page.length) } };
				if (start + page.length < all.length) {
					const next = new URL(`${fake.url}${url.pathname}`);
					for (const [k, v] of url.searchParams) next.searchParams.set(k, v);
					next.searchParams.set('after', paging.cursors.after);
					paging.next = next.toString();
				}
				return fake.send(res, 200, { data, paging });
			},
		},
	];
}
