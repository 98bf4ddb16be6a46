/** The conversations report drawn: headline figures, the days, the breakdowns, the origins and the times. */
import type { Schemas } from '../../api/client';
import { locale, t } from '../../i18n';
import { Chart, formatCount } from './chart';

export type ConversationReport = Schemas['ConversationReport'];
type Bucket = { key: string | null; count: number; name?: string | null };

/** A bar chart shows this many categories at most; the rest are summed as "Other". */
const MOST_CATEGORIES = 10;
const OTHER = '\u0000other';

const number = new Intl.NumberFormat(locale === 'pt' ? 'pt-BR' : 'en', { maximumFractionDigits: 1 });
const dayLabel = new Intl.DateTimeFormat(locale === 'pt' ? 'pt-BR' : 'en', {
	month: 'short',
	day: 'numeric',
	timeZone: 'UTC',
});

export function ConversationCharts({ report }: { report: ConversationReport }) {
	const closed = report.byStatus.find((b) => b.key === 'closed')?.count ?? 0;
	return (
		<>
			<dl class="tiles">
				<Tile label={t('reports.total')} value={report.conversations} />
				<Tile label={t('reports.closed')} value={closed} />
				<Tile label={t('reports.firstResponseMedian')} value={report.firstResponse.medianSeconds} duration />
				<Tile label={t('reports.resolutionMedian')} value={report.resolution.medianSeconds} duration />
				<Tile label={t('reports.handoffs')} value={report.handoffs.total} />
				<Tile label={t('reports.handoffsArrived')} value={report.handoffs.arrived} />
			</dl>
			<div class="report-card wide">
				<Chart
					title={t('reports.byDay')}
					categoryHeader={t('reports.day')}
					categories={report.series.map((d) => dayLabel.format(Date.parse(d.date)))}
					keys={report.series.map((d) => d.date)}
					series={[
						{ label: t('reports.conversations'), values: report.series.map((d) => d.conversations) },
						{ label: t('reports.closedOfThem'), values: report.series.map((d) => d.closed), kind: 'line' },
						{ label: t('reports.handoffs'), values: report.series.map((d) => d.handoffs), kind: 'line' },
					]}
					height={240}
				/>
			</div>
			<div class="report-grid">
				<BucketChart
					title={t('reports.byUtmSource')}
					header={t('reports.utmSource')}
					buckets={report.byOrigin.utmSource}
				/>
				<BucketChart
					title={t('reports.byUtmCampaign')}
					header={t('reports.utmCampaign')}
					buckets={report.byOrigin.utmCampaign}
				/>
				<BucketChart
					title={t('reports.byClick')}
					header={t('reports.click')}
					buckets={report.byOrigin.click}
					label={(b) => clickLabel(b.key)}
				/>
				<TimesChart title={t('reports.firstResponse')} durations={report.firstResponse} />
				<TimesChart title={t('reports.resolution')} durations={report.resolution} />
				<BucketChart
					title={t('reports.byStatus')}
					header={t('reports.status')}
					buckets={report.byStatus}
					label={(b) => statusLabel(b.key)}
				/>
				<BucketChart title={t('reports.byChannel')} header={t('reports.channel')} buckets={report.byChannel} />
				<BucketChart
					title={t('reports.byGroup')}
					header={t('reports.group')}
					buckets={report.byGroup}
					label={(b) => b.name ?? (b.key ? `…${b.key.slice(-6)}` : t('reports.noGroup'))}
				/>
				<BucketChart
					title={t('reports.byAssignee')}
					header={t('reports.assignee')}
					buckets={report.byAssignee}
					label={(b) => b.name ?? (b.key ? `…${b.key.slice(-6)}` : t('reports.unassigned'))}
				/>
			</div>
		</>
	);
}

function Tile({ label, value, duration }: { label: string; value: number | null; duration?: boolean }) {
	return (
		<div>
			<dt>{label}</dt>
			<dd>
				{value === null ? (
					t('common.empty')
				) : (
					<data value={String(value)}>{duration ? durationFormat(value)(value) : formatCount(value)}</data>
				)}
			</dd>
		</div>
	);
}

/** One breakdown as bars, in the API's order (most first), the long tail summed as "Other". */
function BucketChart(props: { title: string; header: string; buckets: Bucket[]; label?: (b: Bucket) => string }) {
	const label = props.label ?? ((b: Bucket) => b.key ?? t('reports.notSet'));
	const buckets = foldTail(props.buckets);
	return (
		<div class="report-card">
			<Chart
				title={props.title}
				categoryHeader={props.header}
				categories={buckets.map((b) => (b.key === OTHER ? t('reports.other') : label(b)))}
				keys={buckets.map((b) => (b.key === OTHER ? '' : (b.key ?? '')))}
				series={[{ label: t('reports.conversations'), values: buckets.map((b) => b.count) }]}
			/>
			{buckets.length === 0 && <p class="muted">{t('reports.nothing')}</p>}
		</div>
	);
}

/** The first MOST_CATEGORIES - 1 buckets and one summing the others, when there are more than MOST_CATEGORIES. */
function foldTail(buckets: Bucket[]): Bucket[] {
	if (buckets.length <= MOST_CATEGORIES) return buckets;
	const head = buckets.slice(0, MOST_CATEGORIES - 1);
	const rest = buckets.slice(MOST_CATEGORIES - 1).reduce((sum, b) => sum + b.count, 0);
	return [...head, { key: OTHER, count: rest }];
}

/** Median, 90th percentile and average of a duration, as bars in the unit that suits the longest. */
function TimesChart({ title, durations }: { title: string; durations: ConversationReport['firstResponse'] }) {
	const values = [durations.medianSeconds, durations.p90Seconds, durations.averageSeconds];
	return (
		<div class="report-card">
			<Chart
				title={title}
				categoryHeader={t('reports.measure')}
				categories={[t('reports.median'), t('reports.p90'), t('reports.average')]}
				keys={['median', 'p90', 'average']}
				series={[{ label: t('reports.time'), values }]}
				format={durationFormat(Math.max(0, ...values.map((v) => v ?? 0)))}
			/>
			<p class="muted small">{t('reports.measured', { n: durations.count })}</p>
		</div>
	);
}

/** A formatter of seconds in seconds, minutes, hours or days: the unit that reads best for `longest`. */
function durationFormat(longest: number): (seconds: number) => string {
	if (longest < 120) return (s) => t('reports.seconds', { n: number.format(s) });
	if (longest < 7200) return (s) => t('reports.minutes', { n: number.format(s / 60) });
	if (longest < 172_800) return (s) => t('reports.hours', { n: number.format(s / 3600) });
	return (s) => t('reports.days', { n: number.format(s / 86_400) });
}

function clickLabel(key: string | null): string {
	if (key === 'search') return t('reports.click.search');
	if (key === 'social') return t('reports.click.social');
	return t('reports.click.none');
}

function statusLabel(key: string | null): string {
	if (key === 'open') return t('inbox.status.open');
	if (key === 'pending') return t('inbox.status.pending');
	if (key === 'closed') return t('inbox.status.closed');
	return key ?? t('reports.notSet');
}
