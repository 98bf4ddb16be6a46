/**
 * What a `scenario.paused` event of the inbox feed changes in the cache. Apart from data/builder.ts: the notice
 * is on every page, in the first load, which the builder's data must not join.
 */
import { useQueryClient } from '@tanstack/react-query';
import { keys } from './keys';

/** Reads every scenario again (the list and each open one, with its runs and versions). */
export function useRefreshScenarios() {
	const client = useQueryClient();
	return () => void client.invalidateQueries({ queryKey: keys.documents.all('scenario') });
}
