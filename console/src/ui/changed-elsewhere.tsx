import { useEffect, useState } from 'preact/hooks';
import { changedElsewhere } from '../api/client';
import { t } from '../i18n';
import { Problem } from './problem';

/**
 * What an editor shows when its save was refused because someone else saved the same thing since it was
 * opened (the API's 412): reload their version (this draft is dropped), or keep this draft, whose next save
 * then replaces their change knowingly.
 */
export function ChangedElsewhere({ onReload, onKeep }: { onReload: () => void; onKeep: () => void }) {
	return (
		<div class="error" role="alert">
			{t('common.changedElsewhere')}{' '}
			<button type="button" onClick={onReload}>
				{t('common.reload')}
			</button>{' '}
			<button type="button" onClick={onKeep}>
				{t('common.keepMine')}
			</button>
		</div>
	);
}

/**
 * The version an editor's draft was loaded at, kept apart from the query that loaded it (which may refetch
 * behind the editor's back, and must not move the version its draft is based on). `etag` goes with each
 * save (`ifMatch(etag)`), `setEtag` takes a save's answer; `notice(error)` is the ChangedElsewhere of a save
 * refused with 412, or null: its Reload fetches the current version (`current`) and hands it to `reload`
 * for the editor to start again from; Keep adopts its version only, so the next save replaces it.
 */
export function usePinnedVersion<T extends { etag: string | null }>(
	initial: string | null | undefined,
	current: () => Promise<T>,
	reload: (fresh: T) => void,
) {
	const [etag, setEtag] = useState(initial ?? null);
	const [settled, setSettled] = useState<unknown>(null);
	const settle = async (error: unknown, adopt: boolean) => {
		const fresh = await current();
		if (adopt) reload(fresh);
		setEtag(fresh.etag);
		setSettled(error);
	};
	const notice = (error: unknown) =>
		changedElsewhere(error) && error !== settled ? (
			<ChangedElsewhere onReload={() => void settle(error, true)} onKeep={() => void settle(error, false)} />
		) : null;
	return { etag, setEtag, notice };
}

/**
 * The version of a record edited in place, field by field as it is shown (a deal beside the board, the contact
 * panel): an edit starts from what is shown, so the version is the shown record's own (`shown.etag`) and moves
 * with it, by this editor's saves or an explicit reload. Its query must therefore not refetch behind the
 * operator (`refetchOnWindowFocus: false`), or a field left open would be saved over a change never seen.
 * `problem(error)` shows a save's refusal: the ChangedElsewhere notice for a 412 (Reload hands the current
 * record to `show` and moves `generation`, a key that closes the fields still open on the old one), else the
 * API's message.
 */
export function useShownVersion<T extends { etag: string | null }>(
	shown: T | undefined,
	current: () => Promise<T>,
	show: (fresh: T) => void,
) {
	const [generation, setGeneration] = useState(0);
	const version = usePinnedVersion(shown?.etag, current, (fresh) => {
		show(fresh);
		setGeneration((n) => n + 1);
	});
	const { setEtag } = version;
	useEffect(() => {
		if (shown) setEtag(shown.etag);
	}, [shown?.etag]);
	const problem = (error: unknown) => (changedElsewhere(error) ? version.notice(error) : <Problem error={error} />);
	return { etag: version.etag, generation, problem };
}
