/**
 * The console's count of a WhatsApp conversation's 24-hour window (console/src/data/whatsapp-window.ts): from
 * the customer's last message, in hours and minutes; the end the room's 409 names; a template's preview.
 */
import { describe, expect, it } from 'vitest';
import {
	closedAtOf,
	SERVICE_WINDOW_MS,
	templatePreview,
	timeLeft,
	windowEnd,
} from '../../console/src/data/whatsapp-window';

describe('the WhatsApp window in the console', () => {
	it('ends 24 hours after the customer’s last message, not the team’s', () => {
		const messages = [
			{ authorKind: 'contact', createdAt: '2026-11-26T08:00:00.000Z' },
			{ authorKind: 'contact', createdAt: '2026-11-26T09:30:00.000Z' },
			{ authorKind: 'operator', createdAt: '2026-11-26T10:00:00.000Z' },
			{ authorKind: 'bot', createdAt: '2026-11-26T11:00:00.000Z' },
		];
		expect(windowEnd(messages)).toBe(Date.parse('2026-11-27T09:30:00.000Z'));
		expect(SERVICE_WINDOW_MS).toBe(86_400_000);
	});

	it('is unknown when no customer message is loaded', () => {
		expect(windowEnd([])).toBeNull();
		expect(windowEnd([{ authorKind: 'operator', createdAt: '2026-11-26T10:00:00.000Z' }])).toBeNull();
	});

	it('says the time left in whole hours and minutes, rounded down, never below zero', () => {
		expect(timeLeft((3 * 60 + 12) * 60_000 + 59_999)).toEqual({ hours: 3, minutes: 12 });
		expect(timeLeft(45 * 60_000)).toEqual({ hours: 0, minutes: 45 });
		expect(timeLeft(SERVICE_WINDOW_MS - 1)).toEqual({ hours: 23, minutes: 59 });
		expect(timeLeft(-5_000)).toEqual({ hours: 0, minutes: 0 });
	});

	it('reads the end from the room’s refusal, when it names one', () => {
		const reason =
			'Outside the 24-hour customer-service window: it closed at 2026-11-26T10:15:03.000Z; only an approved template can be sent.';
		expect(closedAtOf(reason)).toBe('2026-11-26T10:15:03.000Z');
		expect(
			closedAtOf(
				'Outside the 24-hour customer-service window: the customer has not written to this number; only an approved template can be sent.',
			),
		).toBeNull();
		expect(closedAtOf(undefined)).toBeNull();
	});

	it('previews a template with what was typed, positional or named, keeping the empty placeholders', () => {
		expect(templatePreview('Hi {{1}}, your order {{2}} has shipped.', { 1: 'Ana', 2: ' ' })).toBe(
			'Hi Ana, your order {{2}} has shipped.',
		);
		expect(templatePreview('Hello {{ first_name }}!', { first_name: '{{ contact.name }}' })).toBe(
			'Hello {{ contact.name }}!',
		);
	});
});
