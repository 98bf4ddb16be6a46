import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { useDeliveries, useDelivery, useResendDelivery } from '../../data/webhooks';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';

type Status = Schemas['WebhookDeliverySummary']['status'];

/**
 * An endpoint's deliveries, newest first, filtered by status: each with its event, tries and the last try's
 * answer (read on demand: the list does not carry it), and Re-send (the same event, signed anew, now).
 */
export function Deliveries({ endpointId }: { endpointId: string }) {
	const [status, setStatus] = useState<Status | ''>('');
	const list = useDeliveries(endpointId, status);
	const resend = useResendDelivery(endpointId);
	const rows = list.data?.pages.flatMap((page) => page.data) ?? [];
	const filterId = `deliveries-status-${endpointId}`;
	return (
		<section class="deliveries" aria-label={t('webhooks.deliveries')}>
			<div class="deliveries-head">
				<h3>{t('webhooks.deliveries')}</h3>
				<label for={filterId} class="visually-hidden">
					{t('webhooks.deliveries.filter')}
				</label>
				<select id={filterId} value={status} onChange={(e) => setStatus(e.currentTarget.value as Status | '')}>
					<option value="">{t('webhooks.status.any')}</option>
					<option value="pending">{t('webhooks.status.pending')}</option>
					<option value="succeeded">{t('webhooks.status.succeeded')}</option>
					<option value="failed">{t('webhooks.status.failed')}</option>
				</select>
				<button type="button" onClick={() => list.refetch()}>
					{t('webhooks.deliveries.refresh')}
				</button>
			</div>
			{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
			{resend.error && <Problem error={resend.error} />}
			<div class="table-wrap">
				<table>
					<thead>
						<tr>
							<th>{t('webhooks.deliveries.time')}</th>
							<th>{t('webhooks.deliveries.event')}</th>
							<th>{t('webhooks.deliveries.status')}</th>
							<th>{t('webhooks.deliveries.attempts')}</th>
							<th>{t('webhooks.deliveries.response')}</th>
							<th>
								<span class="visually-hidden">{t('webhooks.deliveries.actions')}</span>
							</th>
						</tr>
					</thead>
					<tbody>
						{rows.map((delivery) => (
							<tr key={delivery.id} data-testid="delivery">
								<td>{when(delivery.createdAt)}</td>
								<td>
									<code>{delivery.eventType}</code>
								</td>
								<td>
									<span class={`status ${delivery.status}`}>{t(`webhooks.status.${delivery.status}`)}</span>
									{delivery.nextAttemptAt && (
										<div class="muted small">{t('webhooks.deliveries.next', { at: when(delivery.nextAttemptAt) })}</div>
									)}
								</td>
								<td>{delivery.attempts}</td>
								<td>{delivery.attempts > 0 ? <LastAnswer endpointId={endpointId} delivery={delivery} /> : '—'}</td>
								<td>
									<button
										type="button"
										disabled={resend.isPending}
										onClick={() => resend.mutate(delivery.id)}
										aria-label={t('webhooks.deliveries.resendOne', {
											event: delivery.eventType,
											at: when(delivery.createdAt),
										})}
									>
										{t('webhooks.deliveries.resend')}
									</button>
								</td>
							</tr>
						))}
					</tbody>
				</table>
			</div>
			{list.isSuccess && rows.length === 0 && <p class="muted">{t('webhooks.deliveries.none')}</p>}
			{list.hasNextPage && (
				<button type="button" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
					{t('webhooks.deliveries.more')}
				</button>
			)}
		</section>
	);
}

/** The last try's HTTP status (or its error), from the delivery's detail. */
function LastAnswer(props: { endpointId: string; delivery: Schemas['WebhookDeliverySummary'] }) {
	const detail = useDelivery(props.endpointId, props.delivery);
	const last = detail.data?.attemptLog.at(-1);
	if (!last) return <span class="muted">…</span>;
	return (
		<span title={last.error ?? last.response ?? ''}>
			{last.statusCode ?? t('webhooks.deliveries.noAnswer')}
			<span class="muted small"> · {last.durationMs} ms</span>
		</span>
	);
}
