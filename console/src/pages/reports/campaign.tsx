/**
 * The Reports page's campaign results: a campaign chosen from the list, its funnel from audience to deals won,
 * and its recipients.
 */
import type { Schemas } from '../../api/client';
import { downloadCsv, useCampaignReport, useReportCampaigns } from '../../data/reports';
import { locale, t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { CampaignRecipients } from './campaign-recipients';
import { Chart } from './chart';
import { Field } from './filters';

type CampaignReport = Schemas['CampaignReport'];

const percent = new Intl.NumberFormat(locale === 'pt' ? 'pt-BR' : 'en', { style: 'percent', maximumFractionDigits: 1 });

/** The campaigns to choose from (the newest hundred) and the chosen one's results. */
export function CampaignResults({ campaignId, onChoose }: { campaignId?: string; onChoose: (id?: string) => void }) {
	const campaigns = useReportCampaigns();
	const report = useCampaignReport(campaignId);
	const download = useSubmit(() => downloadCsv(`/reports/campaigns/${campaignId}`, {}, 'campaign.csv'));
	const list = campaigns.data ?? [];
	return (
		<section class="report-card campaign" aria-labelledby="campaign-results">
			<header>
				<h2 id="campaign-results">{t('reports.campaign.title')}</h2>
				{campaignId && report.data && (
					<button type="button" disabled={download.busy} onClick={() => download.submit()}>
						{t('reports.downloadCsv')}
					</button>
				)}
			</header>
			{campaigns.error && <Problem error={campaigns.error} retry={() => campaigns.refetch()} />}
			{download.error && <Problem error={download.error} />}
			{campaigns.isSuccess && list.length === 0 ? (
				<p class="muted">{t('reports.campaign.none')}</p>
			) : (
				<Field id="report-campaign" label={t('reports.campaign.choose')}>
					<select
						id="report-campaign"
						value={campaignId ?? ''}
						onChange={(e) => onChoose(e.currentTarget.value || undefined)}
					>
						<option value="">{t('reports.campaign.pick')}</option>
						{list.map((campaign) => (
							<option key={campaign.id} value={campaign.id}>
								{campaign.name}
							</option>
						))}
					</select>
				</Field>
			)}
			{report.error && <Problem error={report.error} retry={() => report.refetch()} />}
			{campaignId && report.isPending && <p class="muted">{t('common.loading')}</p>}
			{report.data && <CampaignFigures report={report.data} />}
			{campaignId && report.data && (
				<CampaignRecipients
					campaignId={campaignId}
					onEmail={list.find((campaign) => campaign.id === campaignId)?.channel === 'email'}
				/>
			)}
		</section>
	);
}

function CampaignFigures({ report }: { report: CampaignReport }) {
	const steps = (['targeted', 'reach', 'failed', 'skipped', 'replies', 'conversations', 'dealsWon'] as const).map(
		(key) => ({ key, label: t(`reports.campaign.${key}`), value: report[key] }),
	);
	return (
		<>
			<dl class="tiles">
				<div>
					<dt>{t('reports.campaign.replyRate')}</dt>
					<dd>
						<data value={String(report.replyRate)}>{percent.format(report.replyRate)}</data>
					</dd>
				</div>
				<div>
					<dt>{t('reports.campaign.wonValue')}</dt>
					<dd>
						{report.wonValue.length === 0
							? t('common.empty')
							: report.wonValue.map((value) => (
									<span key={value.currency ?? ''} class="money">
										{money(value.valueCents, value.currency)}
									</span>
								))}
					</dd>
				</div>
			</dl>
			<Chart
				title={t('reports.campaign.chart', { name: report.name })}
				categoryHeader={t('reports.campaign.step')}
				categories={steps.map((step) => step.label)}
				keys={steps.map((step) => step.key)}
				series={[{ label: t('reports.contacts'), values: steps.map((step) => step.value) }]}
			/>
		</>
	);
}

/** Minor units in their currency, or a plain number for deals that have none. */
function money(cents: number, currency: string | null): string {
	const language = locale === 'pt' ? 'pt-BR' : 'en';
	if (!currency) return new Intl.NumberFormat(language, { minimumFractionDigits: 2 }).format(cents / 100);
	return new Intl.NumberFormat(language, { style: 'currency', currency }).format(cents / 100);
}
