import { describe, expect, it } from 'vitest';
import { chosenLabel } from '../../src/engines/mail/choices';

const LABELS = ['Sales', 'Support', 'Billing questions'];

describe('chosenLabel: a mail reply read as a button press', () => {
	it.each([
		['2', 'Support'],
		['2.', 'Support'],
		['3)', 'Billing questions'],
		['#1', 'Sales'],
		['  1  \n\nOn Monday Parley wrote:\n> 1. Sales\n> 2. Support', 'Sales'],
		['\n\nsupport', 'Support'],
		['BILLING   questions!', 'Billing questions'],
		['Süpport', 'Support'],
	])('%j chooses %j', (reply, label) => {
		expect(chosenLabel(reply, LABELS)).toBe(label);
	});

	it.each([
		['4'],
		['0'],
		['2 please, and also tell me about prices'],
		['I would like to talk to someone'],
		[''],
		['Sales and Support'],
	])('%j chooses nothing', (reply) => {
		expect(chosenLabel(reply, LABELS)).toBeNull();
	});
});
