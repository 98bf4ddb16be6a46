/**
 * CSV (RFC 4180) for the reports' exports: CRLF line ends, fields with a comma, a quote or a line break
 * quoted. Text that a spreadsheet would read as a formula (`=`, `+`, `-`, `@` first: a utm value is whatever
 * a link said) is prefixed with an apostrophe, so opening an export never runs anything.
 */
export type CsvValue = string | number | null;

function field(value: CsvValue): string {
	if (value === null) return '';
	if (typeof value === 'number') return String(value);
	const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
	return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The rows (the header first) as one CSV document. */
export function toCsv(rows: readonly (readonly CsvValue[])[]): string {
	return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

/** Whether the request asked for CSV (`Accept: text/csv`) rather than JSON. */
export function wantsCsv(accept: string | undefined): boolean {
	return accept !== undefined && /(^|,)\s*text\/csv\b/i.test(accept);
}
