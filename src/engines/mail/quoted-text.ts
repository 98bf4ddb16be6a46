/**
 * What the customer wrote, apart from what their mail client added: the quoted history of the thread and the
 * signature are folded away (kept, for the console to unfold), the new text stays.
 *
 * The quote starts at the first line that introduces one: Gmail's and Apple Mail's "On … wrote:" (also
 * wrapped over two lines, and in French, German, Spanish, Portuguese, Italian and Dutch), Outlook's
 * "-----Original Message-----" or its header block ("From: … / Sent: …"), a "Begin forwarded message:"; else
 * the run of ">" lines that ends the text. ">" lines between the customer's own lines (an answer written
 * inline, under each question) are what they wrote around, and stay. The signature starts at the "-- " line
 * (RFC 3676 §4.3) or at a mobile client's "Sent from my iPhone".
 */

export interface FoldedText {
	/** What the customer wrote: shown as the message. */
	visible: string;
	/** The quoted history, folded away; null when there is none. */
	quote: string | null;
	/** The signature, folded away; null when there is none. */
	signature: string | null;
}

/** A line that introduces a quote, on its own. */
const QUOTE_HEADERS: readonly RegExp[] = [
	/^On\b.{4,200}\bwrote:\s*$/i,
	/^Le\b.{4,200}\ba écrit\s?:\s*$/i,
	/^Am\b.{4,200}\bschrieb\b.{0,80}:\s*$/i,
	/^El\b.{4,200}\bescribió:\s*$/i,
	/^Em\b.{4,200}\bescreveu:\s*$/i,
	/^Il giorno\b.{4,200}\bha scritto:\s*$/i,
	/^Op\b.{4,200}\bschreef\b.{0,80}:\s*$/i,
	/^-{2,}\s*Original Message\s*-{2,}\s*$/i,
	/^-{2,}\s*Forwarded message\s*-{2,}\s*$/i,
	/^Begin forwarded message:\s*$/i,
];

/** Outlook's reply header: a "From:" line followed within a few lines by "Sent:" (or "Date:") and "To:"/"Subject:". */
function isOutlookHeader(lines: readonly string[], at: number): boolean {
	if (!/^\*?From:\*?\s/i.test(lines[at] ?? '')) return false;
	const next = lines.slice(at + 1, at + 5).join('\n');
	return /^\*?(Sent|Date):\*?\s/im.test(next) && /^\*?(To|Subject):\*?\s/im.test(next);
}

/** A mobile client's closing line, which is a signature even without the "-- " delimiter. */
const DEVICE_SIGNATURE =
	/^(Sent from my (iPhone|iPad|Android|mobile device|Galaxy|BlackBerry).*|Sent from (Mail|Outlook) for (Windows|iOS|Android).*|Get Outlook for (iOS|Android).*|Enviado desde mi (iPhone|iPad).*|Envoyé de mon (iPhone|iPad).*|Von meinem iPhone gesendet)\s*$/i;

function quoteStart(lines: readonly string[]): number | null {
	for (let i = 0; i < lines.length; i++) {
		const line = (lines[i] ?? '').trim();
		if (QUOTE_HEADERS.some((re) => re.test(line)) || isOutlookHeader(lines, i)) {
			// Outlook draws a line of underscores just above its header block: it belongs to the quote.
			const above = (lines[i - 1] ?? '').trim();
			return /^_{8,}$/.test(above) ? i - 1 : i;
		}
		// Gmail wraps a long "On <date>, <name> <address>" before "wrote:".
		const joined = `${line} ${(lines[i + 1] ?? '').trim()}`;
		if (/^On\b/i.test(line) && !/wrote:\s*$/i.test(line) && /^On\b.{4,250}\bwrote:\s*$/i.test(joined)) return i;
	}
	// No introduction: the ">" lines (and blank lines) that end the text.
	let start: number | null = null;
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = (lines[i] ?? '').trim();
		if (line.startsWith('>')) start = i;
		else if (line !== '') break;
	}
	return start;
}

function signatureStart(lines: readonly string[]): number | null {
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i] ?? '';
		if (line === '-- ' || line === '--') return i;
		if (DEVICE_SIGNATURE.test(line.trim())) return i;
	}
	return null;
}

const joined = (lines: readonly string[]) => lines.join('\n').trim();

/**
 * Folds a plain-text mail body: what the customer wrote, the quote and the signature. When folding would
 * leave nothing to show (a mail that is only a forwarded message), nothing is folded.
 */
export function foldPlainText(text: string): FoldedText {
	const lines = text.replace(/\r\n?/g, '\n').split('\n');
	const quoteAt = quoteStart(lines);
	const before = quoteAt === null ? lines : lines.slice(0, quoteAt);
	const quote = quoteAt === null ? null : joined(lines.slice(quoteAt));
	const signatureAt = signatureStart(before);
	const own = signatureAt === null ? before : before.slice(0, signatureAt);
	const signature = signatureAt === null ? null : joined(before.slice(signatureAt));
	const visible = joined(own);
	if (visible === '') return { visible: joined(lines), quote: null, signature: null };
	return { visible, quote: quote || null, signature: signature || null };
}
