import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { type FoldedText, foldPlainText } from '../../src/engines/mail/quoted-text';
import { appleMail, gmailMail, outlookMail } from '../mail-samples';

describe('foldPlainText on real clients', () => {
	const cases: [string, string, FoldedText][] = [
		[
			'Gmail: "On … wrote:" wrapped over two lines',
			gmailMail({}, 'Hi, my order #4411 has not arrived yet.'),
			{
				visible: 'Hi, my order #4411 has not arrived yet.',
				quote:
					'On Mon, 23 Nov 2026 at 18:02, Acme Support <support@acme.example>\nwrote:\n\n> Thanks for writing! Could you tell us your order number?\n>',
				signature: null,
			},
		],
		[
			'Outlook: the underscores and the header block, the name under the text kept',
			outlookMail({}, 'Yes, please cancel the subscription.'),
			{
				visible: 'Yes, please cancel the subscription.\n\nJohn Miller\nContoso Ltd.',
				quote:
					'________________________________\nFrom: Acme Support <support@acme.example>\nSent: Monday, November 23, 2026 6:02 PM\nTo: Miller, John <j.miller@contoso.example>\nSubject: Your subscription\n\nWould you like us to cancel it?',
				signature: null,
			},
		],
		[
			'Apple Mail: "Sent from my iPhone", then the ">" quote',
			appleMail({}, 'Great, thank you!'),
			{
				visible: 'Great, thank you!',
				quote:
					'> On 23 Nov 2026, at 18:02, Acme Support <support@acme.example> wrote:\n>\n> Here is the link to reset your password.',
				signature: 'Sent from my iPhone',
			},
		],
	];
	it.each(cases)('%s', async (_name, raw, expected) => {
		const mail = await PostalMime.parse(raw);
		expect(foldPlainText(mail.text ?? '')).toEqual(expected);
	});
});

describe('foldPlainText', () => {
	const cases: [string, string, FoldedText][] = [
		[
			'no quote, no signature',
			'Just a question.\nThanks',
			{ visible: 'Just a question.\nThanks', quote: null, signature: null },
		],
		[
			'a "-- " signature',
			'See you then.\n\n-- \nAna Souza\n+55 11 5555-0100',
			{ visible: 'See you then.', quote: null, signature: '-- \nAna Souza\n+55 11 5555-0100' },
		],
		[
			'"-----Original Message-----"',
			'Done.\n\n-----Original Message-----\nFrom: x\nwhatever',
			{ visible: 'Done.', quote: '-----Original Message-----\nFrom: x\nwhatever', signature: null },
		],
		[
			'an inline answer keeps the quoted questions it answers; only the trailing quote folds',
			'> Which size?\nM, please.\n> Which colour?\nBlue.\n\n> Thanks,\n> Acme',
			{ visible: '> Which size?\nM, please.\n> Which colour?\nBlue.', quote: '> Thanks,\n> Acme', signature: null },
		],
		[
			'French',
			'Merci !\n\nLe lun. 23 nov. 2026 à 18:02, Acme <support@acme.example> a écrit :\n> Bonjour',
			{
				visible: 'Merci !',
				quote: 'Le lun. 23 nov. 2026 à 18:02, Acme <support@acme.example> a écrit :\n> Bonjour',
				signature: null,
			},
		],
		[
			'German',
			'Danke!\n\nAm Mo., 23. Nov. 2026 um 18:02 Uhr schrieb Acme <support@acme.example>:\n> Hallo',
			{
				visible: 'Danke!',
				quote: 'Am Mo., 23. Nov. 2026 um 18:02 Uhr schrieb Acme <support@acme.example>:\n> Hallo',
				signature: null,
			},
		],
		[
			'a mail that is only a quote folds nothing',
			'> just the old text\n> again',
			{ visible: '> just the old text\n> again', quote: null, signature: null },
		],
		[
			'"Get Outlook for iOS"',
			'On my way.\n\nGet Outlook for iOS',
			{ visible: 'On my way.', quote: null, signature: 'Get Outlook for iOS' },
		],
		['CRLF line ends', 'Yes.\r\n\r\n> old', { visible: 'Yes.', quote: '> old', signature: null }],
	];
	it.each(cases)('%s', (_name, text, expected) => {
		expect(foldPlainText(text)).toEqual(expected);
	});
});
