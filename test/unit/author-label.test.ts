import { describe, expect, it } from 'vitest';
import { type AuthorNames, authorLabel } from '../../src/model/author-label';

describe('authorLabel', () => {
	// The console's names: operators from its directory, the contact by its label.
	const consoleNames: AuthorNames = {
		contact: 'Ana Souza',
		operator: (id) => (id === 'op_1' ? 'Admin' : `…${id?.slice(-6)}`),
		bot: 'Bot',
		system: 'System',
	};
	// The widget's: the team speaks as one; the visitor's own messages carry no label.
	const widgetNames: AuthorNames = { contact: null, operator: () => 'Acme', bot: 'Acme', system: 'Acme' };

	it.each([
		['operator', 'op_1', 'Admin', 'Acme'],
		['operator', 'op_zzzzzz9', '…zzzzz9', 'Acme'],
		['bot', 'bot_1', 'Bot', 'Acme'],
		['system', null, 'System', 'Acme'],
		['contact', 'ct_1', 'Ana Souza', null],
	] as const)('%s %s: %j in the console, %j in the widget', (authorKind, authorId, inConsole, inWidget) => {
		expect(authorLabel({ authorKind, authorId }, consoleNames)).toBe(inConsole);
		expect(authorLabel({ authorKind, authorId }, widgetNames)).toBe(inWidget);
	});
});
