/** Items in lists by a key, each list in the items' order: a batch's listeners or events per workspace. */
export function groupBy<T>(items: Iterable<T>, key: (item: T) => string): Map<string, T[]> {
	const groups = new Map<string, T[]>();
	for (const item of items) {
		const k = key(item);
		const list = groups.get(k);
		if (list) list.push(item);
		else groups.set(k, [item]);
	}
	return groups;
}
