/**
 * JSON compared by meaning rather than by text: two bodies that differ only in the order of object keys are
 * the same request (a sender's retry may serialise its map in another order). Both functions walk with an
 * explicit stack, so a hostile body nested thousands deep cannot overflow the call stack.
 */

type Frame = { value: unknown; depth: number };

/**
 * How deep a parsed JSON value nests: 0 for a scalar, 1 for `{}` or `[1]`, 2 for `{"a":{}}`.
 * Stops counting once past `limit` (the caller only needs to know it is too deep).
 */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
	let deepest = 0;
	const stack: Frame[] = [{ value, depth: 0 }];
	while (stack.length > 0) {
		const { value: current, depth } = stack.pop() as Frame;
		if (current === null || typeof current !== 'object') continue;
		const level = depth + 1;
		if (level > deepest) deepest = level;
		if (deepest > limit) return deepest;
		for (const child of Object.values(current)) stack.push({ value: child, depth: level });
	}
	return deepest;
}

/**
 * The JSON text of `value` with every object's keys sorted (by UTF-16 code units, as RFC 8785 does), so that
 * `canonicalJson({b: 1, a: [2]}) === canonicalJson({a: [2], b: 1})`. Values must be what JSON.parse returns.
 */
export function canonicalJson(value: unknown): string {
	const out: string[] = [];
	// Either a value still to write, or a literal piece of text (brackets, commas, keys) to emit as is.
	const stack: Array<{ text: string } | { value: unknown }> = [{ value }];
	while (stack.length > 0) {
		const item = stack.pop() as { text: string } | { value: unknown };
		if ('text' in item) {
			out.push(item.text);
			continue;
		}
		const current = item.value;
		if (current === null || typeof current !== 'object') {
			out.push(JSON.stringify(current) ?? 'null');
			continue;
		}
		const entries: Array<[string | null, unknown]> = Array.isArray(current)
			? current.map((v) => [null, v])
			: Object.keys(current)
					.sort()
					.map((k) => [k, (current as Record<string, unknown>)[k]]);
		const [open, close] = Array.isArray(current) ? ['[', ']'] : ['{', '}'];
		// Pushed in reverse: the stack pops the first entry first.
		stack.push({ text: close });
		for (let i = entries.length - 1; i >= 0; i--) {
			const [key, child] = entries[i] as [string | null, unknown];
			stack.push({ value: child });
			const prefix = key === null ? '' : `${JSON.stringify(key)}:`;
			stack.push({ text: `${i > 0 ? ',' : ''}${prefix}` });
		}
		out.push(open);
	}
	return out.join('');
}
