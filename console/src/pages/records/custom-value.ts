/** A custom value as its field's type wants it: numbers and booleans are not strings; empty clears it. */
export function customValue(type: string, value: string): string | number | boolean | null {
	if (value === '') return null;
	if (type === 'number') return Number(value);
	if (type === 'boolean') return value === 'true';
	return value;
}

/** The input a custom field's value is typed in. */
export function customInputType(type: string): 'number' | 'date' | 'text' {
	return type === 'number' ? 'number' : type === 'date' ? 'date' : 'text';
}
