/**
 * CSV (RFC 4180) for the reports' exports, written by csv-stringify: CRLF line ends, fields with a comma, a
 * quote or a line break quoted, and text that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`
 * first: a utm value is whatever a link said) prefixed with an apostrophe, so opening an export runs nothing.
 */
import { stringify } from 'csv-stringify/browser/esm/sync';

export type CsvValue = string | number | null;

/** The rows (the header first) as one CSV document. */
export function toCsv(rows: readonly (readonly CsvValue[])[]): string {
	return stringify(rows as CsvValue[][], { record_delimiter: 'windows', escape_formulas: true });
}

/** Whether the request asked for CSV (`Accept: text/csv`) rather than JSON. */
export function wantsCsv(accept: string | undefined): boolean {
	return accept !== undefined && /(^|,)\s*text\/csv\b/i.test(accept);
}
