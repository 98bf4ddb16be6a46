/**
 * A campaign's recipients under its results: who, where each stands in the campaign and, on an e-mail
 * campaign, what became of its mail (the badge Settings › E-mail uses, the provider's reason under a failed
 * one), when it went and when the contact replied. Paged as the API pages it.
 */
import { Link } from 'wouter-preact';
import type { Schemas } from '../../api/client';
import { useCampaignRecipients } from '../../data/reports';
import { contactLabel } from '../../data/workspace';
import { t, when } from '../../i18n';
import { MailStatusBadge } from '../../ui/mail-status';
import { Problem } from '../../ui/problem';

type Recipient = Schemas['CampaignRecipient'];

export function CampaignRecipients({ campaignId, onEmail }: { campaignId: string; onEmail: boolean }) {
	const list = useCampaignRecipients(campaignId);
	const rows = list.data?.pages.flatMap((page) => page.data) ?? [];
	// A campaign linked to from outside the newest hundred is not in the list that says its channel: its mails do.
	const showMail = onEmail || rows.some((recipient) => recipient.mail !== null);
	return (
		<section class="campaign-recipients" aria-labelledby="campaign-recipients">
			<h3 id="campaign-recipients">{t('reports.recipients.title')}</h3>
			{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
			{list.isSuccess && rows.length === 0 && <p class="muted">{t('reports.recipients.none')}</p>}
			{rows.length > 0 && (
				<div class="table-wrap">
					<table>
						<thead>
							<tr>
								<th>{t('reports.recipients.contact')}</th>
								<th>{t('reports.recipients.status')}</th>
								{showMail && <th>{t('reports.recipients.mail')}</th>}
								<th>{t('reports.recipients.sentAt')}</th>
								<th>{t('reports.recipients.repliedAt')}</th>
							</tr>
						</thead>
						<tbody>
							{rows.map((recipient) => (
								<RecipientRow key={recipient.contactId} recipient={recipient} onEmail={showMail} />
							))}
						</tbody>
					</table>
				</div>
			)}
			{list.hasNextPage && (
				<button type="button" class="more" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
					{t('reports.recipients.more')}
				</button>
			)}
		</section>
	);
}

function RecipientRow({ recipient, onEmail }: { recipient: Recipient; onEmail: boolean }) {
	const { contactId, contact, mail } = recipient;
	// On e-mail a recipient is sent once its mail is queued: the mail says when the provider took it.
	const sentAt = onEmail ? (mail?.sentAt ?? null) : recipient.sentAt;
	return (
		<tr data-testid="campaign-recipient">
			<td>
				{contact ? (
					<Link href={`/contacts/${contactId}`}>{contactLabel({ id: contactId, ...contact })}</Link>
				) : (
					<span class="muted">{t('reports.recipients.deleted', { id: contactId.slice(-5) })}</span>
				)}
			</td>
			<td>
				{t(`reports.recipient.${recipient.status}`)}
				{recipient.error && <div class="muted small">{recipient.error}</div>}
			</td>
			{onEmail && (
				<td data-testid="recipient-mail">
					{mail ? <MailStatusBadge status={mail.status} error={mail.error} /> : t('common.empty')}
				</td>
			)}
			<td>{sentAt ? when(sentAt) : t('common.empty')}</td>
			<td>{recipient.repliedAt ? when(recipient.repliedAt) : t('common.empty')}</td>
		</tr>
	);
}
