import { describe, expect, it } from 'vitest';
import {
	chosenButton,
	inboundContent,
	type MetaMessage,
	referralOf,
	referralOrigin,
	sentAtOf,
} from '../../src/engines/whatsapp/inbound';

const base = { from: '16505551234', id: 'wamid.1', timestamp: '1749416383' };
const message = (type: string, body: Partial<MetaMessage> = {}): MetaMessage => ({ ...base, type, ...body });

describe('inboundContent', () => {
	it.each([
		['text', message('text', { text: { body: 'hi' } }), { kind: 'text', text: 'hi' }],
		[
			'an image with a caption',
			message('image', { image: { id: 'm1', mime_type: 'image/jpeg', caption: ' look ' } }),
			{ kind: 'media', mediaType: 'image', text: 'look' },
		],
		['an image without one', message('image', { image: { id: 'm1' } }), { kind: 'media', text: '[Photo]' }],
		[
			'a document',
			message('document', { document: { id: 'm2', filename: 'receipt.pdf' } }),
			{ kind: 'media', mediaType: 'document', text: '[Document: receipt.pdf]' },
		],
		[
			'a voice note',
			message('audio', { audio: { id: 'm3', voice: true } }),
			{ kind: 'media', text: '[Voice message]' },
		],
		['an audio file', message('audio', { audio: { id: 'm3' } }), { kind: 'media', text: '[Audio]' }],
		['a video', message('video', { video: { id: 'm4' } }), { kind: 'media', text: '[Video]' }],
		[
			'an animated sticker',
			message('sticker', { sticker: { id: 'm5', animated: true } }),
			{ kind: 'media', text: '[Animated sticker]' },
		],
		[
			'a location without a name',
			message('location', { location: { latitude: 1.5, longitude: -2 } }),
			{ kind: 'text', text: '📍 Location\nhttps://maps.google.com/?q=1.5,-2' },
		],
		[
			'two contact cards',
			message('contacts', {
				contacts: [
					{ name: { formatted_name: 'Ana' }, phones: [{ phone: '+1 555' }], emails: [{ email: 'a@x.test' }] },
					{ phones: [] },
				],
			}),
			{ kind: 'text', text: '👤 Ana: +1 555, a@x.test\n👤 Contact' },
		],
		[
			'a reaction',
			message('reaction', { reaction: { message_id: 'w', emoji: '❤️' } }),
			{ text: 'Reacted ❤️ to a message' },
		],
		[
			'a reaction taken back ("")',
			message('reaction', { reaction: { message_id: 'w', emoji: '' } }),
			{ text: 'Removed a reaction' },
		],
		[
			'a reply button',
			message('interactive', {
				interactive: { type: 'button_reply', button_reply: { id: 'Yes please', title: 'Yes please' } },
			}),
			{ kind: 'reply', id: 'Yes please', title: 'Yes please', text: 'Yes please' },
		],
		[
			'a list row',
			message('interactive', { interactive: { type: 'list_reply', list_reply: { id: 'r1', title: 'Express' } } }),
			{ kind: 'reply', id: 'r1', title: 'Express' },
		],
		[
			'a template quick reply',
			message('button', { button: { payload: 'STOP_PROMOS', text: 'Stop promotions' } }),
			{ kind: 'reply', id: 'STOP_PROMOS', title: 'Stop promotions' },
		],
		['a Flow reply (nfm_reply)', message('interactive', { interactive: { type: 'nfm_reply' } }), { kind: 'text' }],
		[
			'unsupported',
			message('unsupported', { unsupported: { type: 'edit' } }),
			{ text: expect.stringContaining('unsupported (edit)') },
		],
		['unknown (older versions)', message('unknown'), { text: expect.stringContaining(': unknown.') }],
		['a type never seen', message('hologram'), { text: expect.stringContaining(': hologram.') }],
		['a text message without its text', message('text'), { text: expect.stringContaining(': text.') }],
	])('%s', (_name, input, expected) => {
		expect(inboundContent(input)).toMatchObject(expected);
	});
});

describe('chosenButton', () => {
	const labels = ['Talk to someone from sales', 'Track an order in progress', 'Yes'];
	it.each([
		[{ id: 'Yes', title: 'Yes' }, 'Yes'],
		[{ id: 'Track an order in progress', title: 'Track an order in pr' }, 'Track an order in progress'],
		[{ id: 'btn-2', title: 'Track an order in pr' }, 'Track an order in progress'],
		[{ id: 'btn-2', title: 'Track an order in p…' }, 'Track an order in progress'],
		[{ id: 'x', title: 'Tr' }, null],
		[{ id: 'x', title: 'Something else entirely' }, null],
	])('%j → %s', (reply, expected) => {
		expect(chosenButton(reply, labels)).toBe(expected);
	});

	it('does not guess between two labels a cut title fits', () => {
		expect(
			chosenButton({ id: 'x', title: 'Talk to someone from' }, [
				'Talk to someone from sales',
				'Talk to someone from support',
			]),
		).toBeNull();
	});
});

describe('referrals', () => {
	it('keeps what the ad sent, as the conversation’s referral and as a contact origin', () => {
		const referral = referralOf({
			referral: {
				source_url: 'https://fb.me/x',
				source_id: '12',
				source_type: 'ad',
				headline: 'Hi',
				ctwa_clid: 'Aff-1',
			},
		});
		expect(referral).toEqual({
			sourceUrl: 'https://fb.me/x',
			sourceId: '12',
			sourceType: 'ad',
			headline: 'Hi',
			ctwaClid: 'Aff-1',
		});
		expect(referralOrigin(referral ?? {})).toEqual({
			ctwaClid: 'Aff-1',
			adSourceUrl: 'https://fb.me/x',
			adSourceId: '12',
			adSourceType: 'ad',
			adHeadline: 'Hi',
		});
	});

	it('is none without a referral, or with an empty one (a Status ad omits ctwa_clid)', () => {
		expect(referralOf({})).toBeNull();
		expect(referralOf({ referral: {} })).toBeNull();
		expect(referralOf({ referral: { source_type: 'ad' } })).toEqual({ sourceType: 'ad' });
	});
});

describe('sentAtOf', () => {
	it('reads Meta’s seconds, never later than now', () => {
		expect(sentAtOf('1749416383', 2_000_000_000_000)).toBe(1_749_416_383_000);
		expect(sentAtOf('9999999999', 1_000)).toBe(1_000);
		expect(sentAtOf('0', 5)).toBe(5);
	});
});
