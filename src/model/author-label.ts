/**
 * What a message's author is called, written once for the console's inbox preview, its thread and the
 * widget, so one author never reads as "Operator" in one place and by name in another. Each reader supplies
 * the names it knows (the console its directory and the contact's label; the widget the team's name, which
 * speaks for operators and bots alike to a visitor); the rule of which name stands for whom is here. Pure and
 * dependency-free: the widget's chat file bundles it.
 */

export type MessageAuthorKind = 'contact' | 'operator' | 'bot' | 'system';

/** The names a reader knows. */
export interface AuthorNames {
	/** The customer as this reader calls them; null where the customer's own messages carry no label. */
	contact: string | null;
	/** An operator's name by id (a stand-in while unknown); the widget answers with the team's name. */
	operator(id: string | null): string;
	bot: string;
	system: string;
}

/** The label shown with a message (null: none, the customer's own messages in the widget). */
export function authorLabel(message: { authorKind: MessageAuthorKind; authorId: string | null }, names: AuthorNames) {
	switch (message.authorKind) {
		case 'contact':
			return names.contact;
		case 'operator':
			return names.operator(message.authorId);
		case 'bot':
			return names.bot;
		default:
			return names.system;
	}
}
