// The campaigns-and-reports part of the bench report (bench/campaigns.mjs measures it).
import { markdownTable, show, textTable } from './report-format.mjs';

function campaignRows(c) {
	const row = (name, r) => [
		`report over a year${name}: p50 / p99 (× /health)`,
		`${show(r.p50Ms, ' ms')} / ${show(r.p99Ms, ' ms')} (${show(r.p50VsHealth, '×')})`,
	];
	const cost = (name, r) => [
		`report over a year${name}: D1 statements / rows read`,
		`${show(r.d1Statements)} / ${show(r.d1RowsRead)}`,
	];
	const { report, campaign } = c;
	return [
		['conversations / handoffs in the year', `${show(report.conversations)} / ${show(report.handoffs)}`],
		['GET /health (sequential) p50', show(c.healthSequential.p50Ms, ' ms')],
		row('', report.year),
		cost('', report.year),
		row(', utm source and search-ad click', report.yearFilteredByOrigin),
		cost(', utm source and search-ad click', report.yearFilteredByOrigin),
		row(', as CSV', report.yearCsv),
		[
			'campaign recipients / sent / failed',
			`${campaign.recipients} / ${show(campaign.sent)} / ${show(campaign.failed)}`,
		],
		[
			'campaign: send → sent, messages per second (× /health rps)',
			`${show(campaign.seconds, ' s')}, ${show(campaign.messagesPerSecond)} (${show(campaign.vsHealthRps, '×')})`,
		],
	];
}

export function campaignsText(results) {
	return results.campaigns
		? textTable(['campaigns and reports figure', 'value'], campaignRows(results.campaigns))
		: null;
}

export function campaignsSection(results) {
	const c = results.campaigns;
	const lines = ['## Campaigns and reports', ''];
	if (!c) return [...lines, 'Campaigns and reports: not measured (see the warnings).', ''];
	return [
		...lines,
		`Report: ${c.report.conversations} conversations and ${c.report.handoffs} messaging-app handoffs in the last ` +
			'365 days of one workspace, every dimension the report groups by varied, then GET ' +
			'/v3/reports/conversations over the whole year, 10 requests one after another after two warm-ups: as JSON, ' +
			'narrowed by origin, and as CSV. D1 statements and rows read come from the answer’s Server-Timing ' +
			'(`d1-rows`: the rows D1 says each statement read). Campaign: one campaign to every contact of a seeded ' +
			`workspace (${c.campaign.recipients}; a third have an open widget conversation, the rest get a new one), ` +
			'from POST …/send to the campaign `sent`; the sending limit is lifted for the run. Latencies are compared ' +
			'with GET /health timed one at a time, the rate with its closed-loop throughput, in the same run.',
		'',
		markdownTable(['figure', 'value'], campaignRows(c)),
		'',
	];
}
