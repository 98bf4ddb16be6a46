/**
 * The reports as CSV rows (`toCsv` writes them): long format, one row per figure, which a spreadsheet pivots as
 * it likes.
 */
import type { CsvValue } from '../../lib/csv';
import type { CampaignReport } from '../campaigns/results';
import type { ConversationReport } from './reports';

/** The conversations report as `section,key,name,value` rows; durations in seconds, empty where there is none. */
export function conversationReportRows(report: ConversationReport): CsvValue[][] {
	const rows: CsvValue[][] = [['section', 'key', 'name', 'value']];
	const add = (section: string, list: ReadonlyArray<{ key: string | null; count: number; name?: string | null }>) => {
		for (const b of list) rows.push([section, b.key, b.name ?? null, b.count]);
	};
	rows.push(
		['range', 'from', null, report.from],
		['range', 'to', null, report.to],
		['range', 'time_zone', null, report.timeZone],
	);
	for (const [key, value] of Object.entries(report.filters)) rows.push(['filter', key, null, value ?? null]);
	rows.push(['total', 'conversations', null, report.conversations]);
	add('status', report.byStatus);
	add('channel', report.byChannel);
	add('assignee', report.byAssignee);
	add('group', report.byGroup);
	add('click', report.byOrigin.click);
	add('utm_source', report.byOrigin.utmSource);
	add('utm_medium', report.byOrigin.utmMedium);
	add('utm_campaign', report.byOrigin.utmCampaign);
	for (const [section, d] of [
		['first_response', report.firstResponse],
		['resolution', report.resolution],
	] as const) {
		rows.push(
			[section, 'count', null, d.count],
			[section, 'median_seconds', null, d.medianSeconds],
			[section, 'p90_seconds', null, d.p90Seconds],
			[section, 'average_seconds', null, d.averageSeconds],
		);
	}
	rows.push(['handoffs', 'total', null, report.handoffs.total], ['handoffs', 'arrived', null, report.handoffs.arrived]);
	add('handoffs_channel', report.handoffs.byChannel);
	add('handoffs_click', report.handoffs.click);
	add('handoffs_utm_source', report.handoffs.utmSource);
	add('handoffs_utm_medium', report.handoffs.utmMedium);
	add('handoffs_utm_campaign', report.handoffs.utmCampaign);
	for (const d of report.series) {
		rows.push(
			['day', d.date, 'conversations', d.conversations],
			['day', d.date, 'closed', d.closed],
			['day', d.date, 'handoffs', d.handoffs],
		);
	}
	return rows;
}

/** A campaign's report as `metric,value` rows; the won value one row per currency. */
export function campaignReportRows(report: CampaignReport): CsvValue[][] {
	const { wonValue, ...figures } = report;
	return [
		['metric', 'value'],
		...Object.entries(figures).map(([key, value]): CsvValue[] => [key, value]),
		...wonValue.map((v): CsvValue[] => [`wonValue.${v.currency ?? 'none'}`, v.valueCents]),
	];
}
