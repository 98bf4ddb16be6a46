/**
 * A mail reader cannot press a button: a mail that carries a message's buttons lists them numbered
 * (compose.ts), and the customer answers by replying with the number or the text. This reads that answer
 * back into the button's label, so the reply is the same ordinary contact message a widget visitor's press
 * makes ("the answer is the label itself") and a waiting bot takes it as it would in the widget.
 */
import { foldText } from '../keywords';

/** The longest first line read as an answer: a choice is a number or a label (80 characters at most). */
const MAX_ANSWER = 120;

/**
 * The label the reply chose among `labels`, or null when it chose none: its first non-empty line is the
 * number of a choice (`2`, `2.`, `2)`, `#2`) or a choice's text, compared without case, accents or extra
 * spaces.
 *
 * @example chosenLabel('2.\n\nOn Monday Parley wrote:\n> 1. Sales', ['Sales', 'Support']) // 'Support'
 */
export function chosenLabel(reply: string, labels: readonly string[]): string | null {
	const line = reply
		.split('\n')
		.map((l) => l.trim())
		.find((l) => l !== '');
	if (line === undefined || line.length > MAX_ANSWER) return null;
	const number = /^#?(\d{1,2})\s*[.)]?$/.exec(line);
	if (number?.[1]) return labels[Number(number[1]) - 1] ?? null;
	const folded = foldText(line.replace(/[.!]+$/, ''));
	return labels.find((label) => foldText(label) === folded) ?? null;
}
