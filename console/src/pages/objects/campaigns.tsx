import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { type Campaign, useCampaign, useCampaignChanges, useCampaignPreview, useCampaigns } from '../../data/campaigns';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';
import { ContactIdInput } from '../records/contact-options';
import { FieldProblem, fieldProblems, invalid, Section } from '../settings/form';
import { CampaignComposer } from './campaign-composer';

/** Campaigns: the list (newest first, each with its state and counts) and a new campaign's composer. */
export function CampaignsPage({ admin }: { admin: boolean }) {
	const campaigns = useCampaigns();
	return (
		<div class="page settings-page objects-page">
			<header class="settings-header">
				<h1>{t('campaigns.title')}</h1>
				<p class="muted">{t('campaigns.intro')}</p>
			</header>
			<Section id="campaign-list" title={t('campaigns.title')}>
				{campaigns.error && <Problem error={campaigns.error} retry={() => campaigns.refetch()} />}
				{campaigns.data?.data.length === 0 && <p class="muted">{t('campaigns.none')}</p>}
				<ul class="plain campaign-list">
					{campaigns.data?.data.map((campaign) => (
						<li key={campaign.id} class="member-row" data-testid="campaign">
							<div class="who">
								<Link href={`/campaigns/${campaign.id}`}>{campaign.name}</Link>
								<div class="muted small">
									{t(`campaigns.channel.${campaign.channel}`)} · {t(`campaigns.status.${campaign.status}`)}
									{campaign.sendAt && campaign.status === 'scheduled' && ` · ${when(campaign.sendAt)}`}
								</div>
							</div>
							{campaign.startedAt && <Counts campaign={campaign} />}
						</li>
					))}
				</ul>
			</Section>
			<Section id="new-campaign" title={t('campaigns.new')}>
				<CampaignComposer admin={admin} />
			</Section>
		</div>
	);
}

function Counts({ campaign }: { campaign: Campaign }) {
	const { counts } = campaign;
	return (
		<span class="muted small">
			{t('campaigns.counts', {
				sent: counts.sent,
				targeted: counts.targeted,
				failed: counts.failed,
				replied: counts.replied,
			})}
		</span>
	);
}

/**
 * One campaign. A draft or scheduled one: its composer, its preview (the saved message rendered for a sample
 * contact by the API's Liquid) with the audience's count now, a test send, and Schedule or Send now. Once it
 * has started: its counts, Cancel while it sends, and its results on the Reports page.
 */
export function CampaignPage({ id, admin }: { id: string; admin: boolean }) {
	const [, navigate] = useLocation();
	const campaign = useCampaign(id);
	const { remove, cancel } = useCampaignChanges(id);
	const data = campaign.data;
	const editable = data?.status === 'draft' || data?.status === 'scheduled';
	return (
		<div class="page settings-page objects-page">
			<header class="settings-header">
				<p>
					<Link href="/campaigns">{t('campaigns.title')}</Link>
				</p>
				<h1>{data?.name ?? t('common.loading')}</h1>
				{data && (
					<p class="muted" data-testid="campaign-status">
						{t(`campaigns.channel.${data.channel}`)} · {t(`campaigns.status.${data.status}`)}
						{data.status === 'scheduled' &&
							data.sendAt &&
							` · ${t('campaigns.scheduledFor', { at: when(data.sendAt) })}`}
					</p>
				)}
			</header>
			{campaign.error && <Problem error={campaign.error} retry={() => campaign.refetch()} />}
			{data && (
				<>
					{data.startedAt && (
						<Section id="campaign-results" title={t('campaigns.results')}>
							<Counts campaign={data} />
							<p>
								<Link href={`/reports?campaign=${data.id}`}>{t('campaigns.results')}</Link>
							</p>
						</Section>
					)}
					{editable ? (
						<>
							<Section id="campaign-compose" title={t('campaigns.compose')}>
								<CampaignComposer key={data.id} campaign={data} admin={admin} />
							</Section>
							<PreviewAndTest campaign={data} />
							<SendSection campaign={data} />
						</>
					) : (
						<p class="muted">{t('campaigns.readOnly')}</p>
					)}
					<div class="actions">
						{(data.status === 'scheduled' || data.status === 'sending') && (
							<button type="button" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
								{t('campaigns.cancel')}
							</button>
						)}
						{editable && (
							<button
								type="button"
								class="danger"
								disabled={remove.isPending}
								onClick={() =>
									confirm(t('campaigns.deleteConfirm', { name: data.name })) &&
									remove.mutate(undefined, { onSuccess: () => navigate('/campaigns') })
								}
							>
								{t('campaigns.delete')}
							</button>
						)}
					</div>
					{(cancel.error || remove.error) && <Problem error={cancel.error ?? remove.error} />}
				</>
			)}
		</div>
	);
}

/** The saved message for a sample contact, the audience's count now, and a test to one contact. */
function PreviewAndTest({ campaign }: { campaign: Campaign }) {
	const [contactId, setContactId] = useState('');
	const [asContact, setAsContact] = useState('');
	const preview = useCampaignPreview(campaign, asContact);
	const { test } = useCampaignChanges(campaign.id);
	const [testTo, setTestTo] = useState('');
	const testProblems = fieldProblems(test.error);
	return (
		<Section id="campaign-preview" title={t('campaigns.preview')}>
			<form
				class="inline-form"
				onSubmit={(e) => {
					e.preventDefault();
					setAsContact(contactId.trim());
				}}
			>
				<label for="preview-contact">{t('campaigns.preview.for')}</label>
				<ContactIdInput id="preview-contact" value={contactId} onInput={setContactId} />
				<button type="submit">{t('campaigns.preview.show')}</button>
			</form>
			{preview.error && <Problem error={preview.error} />}
			{preview.data && (
				<div class="campaign-preview" data-testid="campaign-preview">
					<p role="status" data-testid="audience-count">
						{t('campaigns.audience.count', { n: preview.data.audienceSize })}
					</p>
					{preview.data.subject && <p class="preview-subject">{preview.data.subject}</p>}
					{preview.data.text && <p class="preview-text">{preview.data.text}</p>}
				</div>
			)}
			<form
				class="inline-form"
				noValidate
				onSubmit={(e) => {
					e.preventDefault();
					test.mutate(testTo.trim());
				}}
			>
				<label for="test-contact">{t('campaigns.test')}</label>
				<ContactIdInput
					id="test-contact"
					value={testTo}
					onInput={setTestTo}
					attributes={invalid('test-contact', testProblems.get('contactId'))}
				/>
				<button type="submit" disabled={test.isPending}>
					{t('campaigns.test.submit')}
				</button>
				<FieldProblem id="test-contact" message={testProblems.get('contactId')} />
				{test.isSuccess && <span role="status">{t('campaigns.test.sent')}</span>}
			</form>
			{test.error !== null && testProblems.size === 0 && <Problem error={test.error} />}
		</Section>
	);
}

/** Schedule for a local time in the workspace's time zone, or send now. */
function SendSection({ campaign }: { campaign: Campaign }) {
	const { send } = useCampaignChanges(campaign.id);
	const [sendAt, setSendAt] = useState(campaign.sendAtLocal ?? '');
	const problems = fieldProblems(send.error);
	return (
		<Section id="campaign-send" title={t('campaigns.schedule')}>
			<form
				class="inline-form"
				noValidate
				onSubmit={(e) => {
					e.preventDefault();
					send.mutate(sendAt);
				}}
			>
				<label for="campaign-send-at">{t('campaigns.sendAt', { timeZone: campaign.timeZone })}</label>
				<input
					id="campaign-send-at"
					type="datetime-local"
					value={sendAt}
					onInput={(e) => setSendAt(e.currentTarget.value)}
					{...invalid('campaign-send-at', problems.get('sendAt'))}
				/>
				<button type="submit" disabled={send.isPending || !sendAt}>
					{t('campaigns.schedule')}
				</button>
				<button
					type="button"
					class="primary"
					disabled={send.isPending}
					onClick={() => confirm(t('campaigns.sendConfirm', { name: campaign.name })) && send.mutate(undefined)}
				>
					{t('campaigns.sendNow')}
				</button>
				<FieldProblem id="campaign-send-at" message={problems.get('sendAt')} />
			</form>
			{send.error !== null && problems.size === 0 && <Problem error={send.error} />}
		</Section>
	);
}
