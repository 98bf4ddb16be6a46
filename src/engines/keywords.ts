/**
 * Keyword triggers: does a visitor's message hold one of a bot's keywords? As whole words (or phrases),
 * ignoring case and accents, so "Preço?" matches the keyword "preco" and "priced" does not match "price".
 */

/** Lower case, accents off ("Preço" → "preco"), spaces collapsed. */
export function foldText(text: string): string {
	return text
		.normalize('NFD')
		.replace(/\p{Mn}/gu, '')
		.toLowerCase()
		.replace(/\s+/g, ' ')
		.trim();
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first of `keywords` the text holds as a whole word or phrase; null when none. */
export function matchedKeyword(text: string, keywords: readonly string[]): string | null {
	const folded = foldText(text);
	for (const keyword of keywords) {
		const word = foldText(keyword);
		if (word === '') continue;
		// Not a letter or digit on either side: a word boundary that knows accented letters, unlike \b.
		if (new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(word)}(?![\\p{L}\\p{N}])`, 'u').test(folded)) return keyword;
	}
	return null;
}
