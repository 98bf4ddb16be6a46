import { useState } from 'preact/hooks';
import {
	type DeliveryStatus,
	type InboundStatus,
	rawMailUrl,
	useInboundMails,
	useMailDeliveries,
} from '../../data/email';
import { t, when } from '../../i18n';
import { MailStatusBadge } from '../../ui/mail-status';
import { Problem } from '../../ui/problem';
import { Section } from './form';

const INBOUND_STATUSES: InboundStatus[] = ['posted', 'ignored', 'rejected', 'failed', 'received'];
const DELIVERY_STATUSES: DeliveryStatus[] = ['queued', 'sending', 'sent', 'failed', 'skipped'];

/** A list's status filter: a labelled select whose first choice is every status. */
function StatusFilter<S extends InboundStatus | DeliveryStatus>(props: {
	id: string;
	statuses: S[];
	value: S | '';
	onChange: (status: S | '') => void;
}) {
	return (
		<div class="deliveries-head">
			<label for={props.id}>{t('email.list.status')}</label>
			<select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as S | '')}>
				<option value="">{t('email.list.any')}</option>
				{props.statuses.map((status) => (
					<option key={status} value={status}>
						{t(`email.status.${status as InboundStatus | DeliveryStatus}`)}
					</option>
				))}
			</select>
		</div>
	);
}

/** The mails the workspace received, newest first: what became of each (failures with their reason) and its original. */
export function ReceivedMails() {
	const [status, setStatus] = useState<InboundStatus | ''>('');
	const list = useInboundMails(status);
	const rows = list.data?.pages.flatMap((page) => page.data) ?? [];
	return (
		<Section id="email-received" title={t('email.received')}>
			<StatusFilter id="email-received-status" statuses={INBOUND_STATUSES} value={status} onChange={setStatus} />
			{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
			{list.isSuccess && rows.length === 0 && <p class="muted">{t('email.list.none')}</p>}
			{rows.length > 0 && (
				<div class="table-wrap">
					<table>
						<thead>
							<tr>
								<th>{t('email.list.time')}</th>
								<th>{t('email.list.from')}</th>
								<th>{t('email.list.subject')}</th>
								<th>{t('email.list.status')}</th>
								<th>
									<span class="visually-hidden">{t('email.list.original')}</span>
								</th>
							</tr>
						</thead>
						<tbody>
							{rows.map((mail) => (
								<tr key={mail.id} data-testid="received-mail">
									<td>{when(mail.receivedAt)}</td>
									<td>
										{mail.envelopeFrom || t('mail.nullSender')}
										<div class="muted small">{t('email.list.to', { to: mail.envelopeTo })}</div>
									</td>
									<td>
										{mail.subject ?? '—'}
										{mail.kind !== 'message' && <div class="muted small">{t(`mail.kind.${mail.kind}`)}</div>}
										{mail.possiblyForged && <div class="field-problem">{t('mail.possiblyForged')}</div>}
									</td>
									<td>
										<span class={`status ${mail.status === 'posted' ? 'succeeded' : mail.status}`}>
											{t(`email.status.${mail.status}`)}
										</span>
										{mail.failure && <div class="muted small">{mail.failure}</div>}
									</td>
									<td>
										<a href={rawMailUrl(mail.id)} download={`${mail.id}.eml`}>
											{t('mail.viewOriginal')}
										</a>
									</td>
								</tr>
							))}
						</tbody>
					</table>
				</div>
			)}
			{list.hasNextPage && (
				<button type="button" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
					{t('email.list.more')}
				</button>
			)}
		</Section>
	);
}

/** The mails Parley sent or tried to, newest first: where each stands and, when it did not go, why. */
export function SentMails() {
	const [status, setStatus] = useState<DeliveryStatus | ''>('');
	const list = useMailDeliveries(status);
	const rows = list.data?.pages.flatMap((page) => page.data) ?? [];
	return (
		<Section id="email-sent" title={t('email.sent')}>
			<StatusFilter id="email-sent-status" statuses={DELIVERY_STATUSES} value={status} onChange={setStatus} />
			{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
			{list.isSuccess && rows.length === 0 && <p class="muted">{t('email.list.none')}</p>}
			{rows.length > 0 && (
				<div class="table-wrap">
					<table>
						<thead>
							<tr>
								<th>{t('email.list.time')}</th>
								<th>{t('email.list.recipient')}</th>
								<th>{t('email.list.kind')}</th>
								<th>{t('email.list.status')}</th>
								<th>{t('email.list.attempts')}</th>
							</tr>
						</thead>
						<tbody>
							{rows.map((delivery) => (
								<tr key={delivery.id} data-testid="sent-mail">
									<td>{when(delivery.createdAt)}</td>
									<td>{delivery.recipient}</td>
									<td>{t(`email.kind.${delivery.kind}`)}</td>
									<td>
										<MailStatusBadge status={delivery.status} error={delivery.error} />
									</td>
									<td>{delivery.attempts}</td>
								</tr>
							))}
						</tbody>
					</table>
				</div>
			)}
			{list.hasNextPage && (
				<button type="button" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
					{t('email.list.more')}
				</button>
			)}
		</Section>
	);
}
