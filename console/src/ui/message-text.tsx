/**
 * A message's text and its author as every Parley client shows them: the formatting of src/model/formatting.ts
 * as Preact elements (the widget builds the same tree with DOM calls), and the author's label by
 * src/model/author-label.ts, so the inbox's preview and the thread name an author alike.
 */
import { h, type VNode } from 'preact';
import { type AuthorNames, authorLabel, type MessageAuthorKind } from '../../../src/model/author-label';
import { formatTokens, type MakeElement, plainText, renderFormatted } from '../../../src/model/formatting';
import { type Directory, operatorName } from '../data/workspace';
import { t } from '../i18n';

const makeElement: MakeElement<VNode> = (tag, attributes, children) => h(tag, attributes, ...children);

/**
 * The text of a message, formatted; `dir="auto"` lets each message take the direction of its own first strong
 * character, so a Hebrew reply reads right to left beside an English one.
 */
export function MessageText({ text }: { text: string }) {
	return (
		<div class="text" dir="auto">
			{renderFormatted(text, makeElement)}
		</div>
	);
}

/** A message's text on one line without its markers (the inbox's preview: a row is a button, so no links). */
export function previewText(text: string): string {
	return plainText(formatTokens(text)).replace(/\s+/g, ' ');
}

/** The names the console knows: operators from the directory, the customer by `contact` (null: unlabelled). */
export function consoleAuthorNames(directory: Directory | undefined, contact: string | null): AuthorNames {
	return {
		contact,
		operator: (id) => operatorName(directory, id),
		bot: t('author.bot'),
		system: t('author.system'),
	};
}

/** The label of a message's author in the console. */
export function consoleAuthor(
	message: { authorKind: MessageAuthorKind; authorId: string | null },
	directory: Directory | undefined,
	contact: string | null,
): string | null {
	return authorLabel(message, consoleAuthorNames(directory, contact));
}
