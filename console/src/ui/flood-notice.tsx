/**
 * The notice an admin sees on whatever page they are when flood protection pauses a scenario: the workspace
 * sends `scenario.paused` on the inbox feed to admins only. It names the scenario and the limit it went past,
 * links to it, and stays until dismissed (a pause waits for a person, so a notice that fades could be missed).
 */
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { useRefreshScenarios } from '../data/flood';
import { useFeedEvent } from '../feed';
import { t } from '../i18n';

interface Notice {
	scenarioId: string;
	name: string;
	runsPerMinute: number;
}

/** What a `scenario.paused` event's payload carries (src/domain/automation/scenarios/flood.ts), or null for anything else. */
function noticeOf(payload: Record<string, unknown>): Notice | null {
	const scenario = payload.scenario as { id?: unknown; name?: unknown } | undefined;
	if (typeof scenario?.id !== 'string' || typeof payload.runsPerMinute !== 'number') return null;
	return {
		scenarioId: scenario.id,
		name: typeof scenario.name === 'string' ? scenario.name : scenario.id,
		runsPerMinute: payload.runsPerMinute,
	};
}

export function FloodNotices() {
	const refreshScenarios = useRefreshScenarios();
	const [notices, setNotices] = useState<Notice[]>([]);
	useFeedEvent((event) => {
		if (event === 'reconnected' || event.type !== 'scenario.paused') return;
		const notice = noticeOf(event.payload);
		if (!notice) return;
		// One notice a scenario: paused again after a resume, its notice is the newest.
		setNotices((current) => [...current.filter((n) => n.scenarioId !== notice.scenarioId), notice]);
		// The scenarios list and the scenario's own page show it paused without a reload.
		refreshScenarios();
	});
	const dismiss = (scenarioId: string) => setNotices((current) => current.filter((n) => n.scenarioId !== scenarioId));
	if (notices.length === 0) return null;
	return (
		<div class="flood-notices">
			{notices.map((notice) => (
				<div key={notice.scenarioId} class="flood-notice" role="alert">
					<p>{t('flood.notice', { name: notice.name, n: notice.runsPerMinute })}</p>
					<div class="actions">
						<Link href={`/scenarios/${notice.scenarioId}`} onClick={() => dismiss(notice.scenarioId)}>
							{t('flood.open')}
						</Link>
						<button type="button" onClick={() => dismiss(notice.scenarioId)}>
							{t('flood.dismiss')}
						</button>
					</div>
				</div>
			))}
		</div>
	);
}
