/**
 * The Reports page (a chunk of its own, so uPlot loads only here): the conversations report for the filters in
 * the URL as charts, each with its figures as a table, the API's CSV of the same report, and a campaign's
 * results.
 */
import { useRef } from 'preact/hooks';
import { hasPermission } from '../../../../src/model/permissions';
import { downloadCsv, useConversationReport } from '../../data/reports';
import type { ConsoleSession } from '../../data/session';
import { useDirectory } from '../../data/workspace';
import { addWords, t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { CampaignResults } from './campaign';
import { ConversationCharts, type ConversationReport } from './conversations';
import { FilterBar, reportQuery, useReportFilters } from './filters';
import './reports.css';
import * as reportsWords from '../../words/reports';

// This chunk's words, added before anything in it renders.
addWords(reportsWords);

export default function ReportsPage({ session }: { session: ConsoleSession }) {
	const [filters, setFilters] = useReportFilters();
	const query = reportQuery(filters);
	const report = useConversationReport(query);
	const directory = useDirectory();
	const seen = useSeen(report.data);
	const download = useSubmit(() => downloadCsv('/reports/conversations', query, 'conversations.csv'));
	const data = report.data;
	const empty = data && data.conversations === 0 && data.handoffs.total === 0;
	return (
		<div class="reports-page" aria-busy={report.isFetching}>
			<header class="reports-header">
				<div>
					<h1>{t('reports.title')}</h1>
					{data && (
						<p class="muted">{t('reports.rangeNote', { from: data.from, to: data.to, timeZone: data.timeZone })}</p>
					)}
				</div>
				<button type="button" disabled={!data || download.busy} onClick={() => download.submit()}>
					{t('reports.downloadCsv')}
				</button>
			</header>
			<FilterBar
				filters={filters}
				onChange={setFilters}
				range={data && { from: data.from, to: data.to, timeZone: data.timeZone }}
				directory={directory.data}
				seen={seen}
			/>
			{download.error && <Problem error={download.error} />}
			{report.error && <Problem error={report.error} retry={() => report.refetch()} />}
			{report.isPending && <p class="muted">{t('common.loading')}</p>}
			{empty && (
				<p class="report-empty" role="status">
					{t('reports.empty')}
				</p>
			)}
			{data && !empty && <ConversationCharts report={data} />}
			{hasPermission(session.permissions, 'crm:access') && (
				<CampaignResults campaignId={filters.campaign} onChoose={(campaign) => setFilters({ ...filters, campaign })} />
			)}
		</div>
	);
}

/** Channels, utm sources and utm campaigns seen in this visit's reports: the filters' choices, kept when one narrows. */
function useSeen(report: ConversationReport | undefined) {
	const seen = useRef({ channels: new Set<string>(), utmSources: new Set<string>(), utmCampaigns: new Set<string>() });
	if (report) {
		const add = (set: Set<string>, buckets: Array<{ key: string | null }>) => {
			for (const b of buckets) if (b.key) set.add(b.key);
		};
		add(seen.current.channels, report.byChannel);
		add(seen.current.utmSources, report.byOrigin.utmSource);
		add(seen.current.utmCampaigns, report.byOrigin.utmCampaign);
	}
	const sorted = (set: Set<string>) => [...set].sort((a, b) => a.localeCompare(b));
	return {
		channels: sorted(seen.current.channels),
		utmSources: sorted(seen.current.utmSources),
		utmCampaigns: sorted(seen.current.utmCampaigns),
	};
}
