/**
 * The fake Graph API's messages endpoint, `POST /{phone_number_id}/messages` (WHATSAPP-REF §4, §7, §10): every
 * body checked against Meta's documented shapes and limits (a broken one answers Meta's error, code 100 or
 * 131009 with the details), template names and parameter counts against the registered templates
 * (templates.mjs; 132001, 132000), Meta's throughput per number (80 a second by default, over a sliding
 * second; 130429) and its pair rate per recipient (one every 6 s after a burst of 45; 131056). An accepted
 * message answers `{messaging_product, contacts, messages:[{id:'wamid.…'}]}` and is recorded.
 *
 * The 24-hour window is checked only for a number that asks for it (`enforceWindow` below), from the
 * customer messages the test says arrived (`POST /__fake/inbound`): most tests check the window in Parley and
 * need not tell the fake; those that do see Meta's 131047, answered synchronously.
 *
 * Control endpoints (`controls`):
 * - `POST /__fake/settings {phoneNumberId, messagesPerSecond?, enforceWindow?}`.
 * - `POST /__fake/inbound {phoneNumberId, from, at?}`: the customer `from` (wa_id) wrote at `at` (ms, now).
 * - `GET /__fake/messages?phoneNumberId=…`: `{messages: [{to, type, body, wamid, at}], refused: [{code, at}]}`.
 */
import { randomBytes } from 'node:crypto';
import { placeholders, templateOf } from './templates.mjs';

const SEND = /^\/(\d+)\/messages$/;
const DEFAULT_MPS = 80;
const PAIR_INTERVAL_MS = 6000;
const PAIR_BURST = 45;
const WINDOW_MS = 24 * 60 * 60 * 1000;
const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'];
const TYPES = ['text', ...MEDIA_TYPES, 'interactive', 'template', 'reaction', 'location', 'contacts'];
const E164 = /^\+?[1-9]\d{6,14}$/;

function numberState(fake, phoneNumberId) {
	fake.state.messaging ??= new Map();
	let number = fake.state.messaging.get(phoneNumberId);
	if (!number) {
		number = {
			messagesPerSecond: DEFAULT_MPS,
			enforceWindow: false,
			inbound: new Map(),
			pairs: new Map(),
			recent: [],
			messages: [],
			refused: [],
		};
		fake.state.messaging.set(phoneNumberId, number);
	}
	return number;
}

export function reset(fake) {
	fake.state.messaging = undefined;
}

/** A broken rule: Meta's error code and its details. */
class Broken extends Error {
	constructor(details, code = 131009, title = 'Parameter value is not valid', status = 400) {
		super(details);
		Object.assign(this, { code, title, status });
	}
}

const isString = (v) => typeof v === 'string';
function text(value, what, max, { required = true } = {}) {
	if (value === undefined && !required) return;
	if (!isString(value) || value.length === 0) throw new Broken(`${what} is required.`, 100, 'Invalid parameter');
	if (value.length > max) throw new Broken(`${what} is longer than ${max} characters (${value.length}).`);
}

function media(type, object) {
	const sources = ['id', 'link'].filter((k) => object[k] !== undefined);
	if (sources.length !== 1) throw new Broken(`${type} needs exactly one of id and link.`, 100, 'Invalid parameter');
	if (object.link !== undefined && !/^https?:\/\//.test(object.link)) throw new Broken(`${type}.link is not a URL.`);
	if (object.caption !== undefined) {
		if (type === 'audio' || type === 'sticker') throw new Broken(`${type} takes no caption.`);
		text(object.caption, `${type}.caption`, 1024);
	}
	if (object.filename !== undefined && type !== 'document') throw new Broken(`only a document takes a filename.`);
}

function interactive(object) {
	text(object.body?.text, 'interactive.body.text', object.type === 'list' ? 4096 : 1024);
	if (object.footer !== undefined) text(object.footer.text, 'interactive.footer.text', 60);
	if (object.header !== undefined && object.header.type === 'text')
		text(object.header.text, 'interactive.header.text', 60);
	if (object.type === 'button') {
		const buttons = object.action?.buttons;
		if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) {
			throw new Broken('interactive buttons must be 1 to 3.');
		}
		for (const b of buttons) {
			if (b.type !== 'reply') throw new Broken('a button must be of type reply.');
			text(b.reply?.id, 'button id', 256);
			text(b.reply?.title, 'button title', 20);
		}
		if (new Set(buttons.map((b) => b.reply.title)).size !== buttons.length)
			throw new Broken('button titles must be unique.');
		if (new Set(buttons.map((b) => b.reply.id)).size !== buttons.length) throw new Broken('button ids must be unique.');
		return;
	}
	if (object.type === 'list') {
		if (object.header !== undefined && object.header.type !== 'text') throw new Broken('a list header must be text.');
		text(object.action?.button, 'list button', 20);
		const sections = object.action?.sections;
		if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10) {
			throw new Broken('a list needs 1 to 10 sections.');
		}
		const rows = sections.flatMap((s) => {
			text(s.title, 'section title', 24, { required: sections.length > 1 });
			return Array.isArray(s.rows) ? s.rows : [];
		});
		if (rows.length < 1 || rows.length > 10) throw new Broken(`a list needs 1 to 10 rows in all (${rows.length}).`);
		for (const r of rows) {
			text(r.id, 'row id', 200);
			text(r.title, 'row title', 24);
			if (r.description !== undefined) text(r.description, 'row description', 72);
		}
		if (new Set(rows.map((r) => r.id)).size !== rows.length) throw new Broken('row ids must be unique.');
		return;
	}
	throw new Broken(`interactive type ${object.type} is not supported here.`);
}

function template(fake, phoneNumberId, object) {
	text(object.name, 'template.name', 512);
	text(object.language?.code, 'template.language.code', 15);
	const found = templateOf(fake, phoneNumberId, object.name, object.language.code);
	if (found?.status !== 'APPROVED') {
		throw new Broken(
			`template name (${object.name}) does not exist in ${object.language.code}`,
			132001,
			'Template name does not exist in the translation',
			404,
		);
	}
	const bodyText = found.components?.find((c) => c.type === 'BODY')?.text ?? '';
	const expected = placeholders(bodyText);
	const given = (object.components ?? []).find((c) => c.type === 'body')?.parameters ?? [];
	if (given.length !== expected.length) {
		throw new Broken(
			`body: number of localizable_params (${given.length}) does not match the expected number of params (${expected.length})`,
			132000,
			'Number of parameters does not match the expected number of params',
		);
	}
	for (const [i, p] of given.entries()) {
		if (p.type !== 'text' || !isString(p.text)) throw new Broken(`body parameter ${i + 1} must be text.`);
		if (found.parameter_format === 'NAMED' && p.parameter_name !== expected[i]) {
			throw new Broken(
				`body parameter ${i + 1} must be named ${expected[i]}.`,
				132012,
				'Parameter format does not match format in the created template',
			);
		}
	}
}

/** Checks one body as Meta would; throws Broken. */
function check(fake, phoneNumberId, body) {
	if (body?.messaging_product !== 'whatsapp')
		throw new Broken('messaging_product must be whatsapp.', 100, 'Invalid parameter');
	if (body.recipient_type !== undefined && !['individual', 'group'].includes(body.recipient_type)) {
		throw new Broken('recipient_type must be individual or group.');
	}
	if (!isString(body.to) || !E164.test(body.to))
		throw new Broken(`to (${body.to}) is not a phone number.`, 100, 'Invalid parameter');
	if (!TYPES.includes(body.type)) throw new Broken(`type ${body.type} is not supported.`, 100, 'Invalid parameter');
	const objects = TYPES.filter((t) => body[t] !== undefined);
	if (objects.length !== 1 || objects[0] !== body.type) {
		throw new Broken(`the body must carry exactly one ${body.type} object.`, 100, 'Invalid parameter');
	}
	const object = body[body.type];
	if (body.type === 'text') {
		text(object.body, 'text.body', 4096);
		if (object.preview_url !== undefined && typeof object.preview_url !== 'boolean')
			throw new Broken('preview_url must be a boolean.');
	} else if (MEDIA_TYPES.includes(body.type)) media(body.type, object);
	else if (body.type === 'interactive') interactive(object);
	else if (body.type === 'template') template(fake, phoneNumberId, object);
}

/** Meta's throughput (a sliding second) and pair rate (GCRA: one every 6 s after a burst of 45). */
function throttle(number, to, now) {
	number.recent = number.recent.filter((at) => at > now - 1000);
	if (number.recent.length >= number.messagesPerSecond) {
		throw new Broken('Rate limit hit', 130429, 'Rate limit hit');
	}
	const next = number.pairs.get(to) ?? now;
	if (next - now > (PAIR_BURST - 1) * PAIR_INTERVAL_MS) {
		throw new Broken(
			'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
			131056,
			'(Business Account, Consumer Account) pair rate limit hit',
		);
	}
	number.recent.push(now);
	number.pairs.set(to, Math.max(next, now) + PAIR_INTERVAL_MS);
}

export function controls(fake) {
	return [
		{
			method: 'POST',
			path: '/__fake/settings',
			handle({ res, json }) {
				const number = numberState(fake, String(json.phoneNumberId));
				if (json.messagesPerSecond !== undefined) number.messagesPerSecond = json.messagesPerSecond;
				if (json.enforceWindow !== undefined) number.enforceWindow = json.enforceWindow === true;
				return fake.send(res, 200, { ok: true });
			},
		},
		{
			method: 'POST',
			path: '/__fake/inbound',
			handle({ res, json }) {
				numberState(fake, String(json.phoneNumberId)).inbound.set(String(json.from), json.at ?? Date.now());
				return fake.send(res, 200, { ok: true });
			},
		},
		{
			method: 'GET',
			path: '/__fake/messages',
			handle({ res, url }) {
				const number = numberState(fake, url.searchParams.get('phoneNumberId') ?? '');
				return fake.send(res, 200, { messages: number.messages, refused: number.refused });
			},
		},
	];
}

export function routes(fake) {
	return [
		{
			method: 'POST',
			path: SEND,
			numberOf: (match) => match[1],
			handle({ res, match, body }) {
				const phoneNumberId = match[1];
				const number = numberState(fake, phoneNumberId);
				const now = Date.now();
				try {
					check(fake, phoneNumberId, body);
					const to = body.to.replace(/^\+/, '');
					const lastInbound = number.inbound.get(to);
					if (number.enforceWindow && body.type !== 'template' && !(lastInbound > now - WINDOW_MS)) {
						throw new Broken(
							'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
							131047,
							'Re-engagement message',
						);
					}
					throttle(number, to, now);
					const wamid = `wamid.${randomBytes(18).toString('base64url')}`;
					number.messages.push({ to, type: body.type, body, wamid, at: now });
					return fake.send(res, 200, {
						messaging_product: 'whatsapp',
						contacts: [{ input: body.to, wa_id: to }],
						messages: [body.type === 'template' ? { id: wamid, message_status: 'accepted' } : { id: wamid }],
					});
				} catch (error) {
					if (!(error instanceof Broken)) throw error;
					number.refused.push({ code: error.code, details: error.message, at: now });
					return fake.send(res, error.status, fake.metaError(error.code, error.title, error.message));
				}
			},
		},
	];
}
