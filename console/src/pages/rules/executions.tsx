/**
 * A rule's execution log: each event its trigger met, newest first, matched (each action's outcome) or
 * skipped and why, when, and for which conversation; paged as the API pages (50 at a time), filtered by
 * outcome, refreshed every few seconds while open.
 */
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { Schemas } from '../../api/client';
import { useRuleExecutions } from '../../data/rules';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';

type Execution = Schemas['AutomationRuleExecution'];
type Status = Execution['status'];

const STATUSES: readonly Status[] = ['succeeded', 'failed', 'skipped', 'running'];

export function ExecutionLog({ ruleId }: { ruleId: string }) {
	const [status, setStatus] = useState<Status | ''>('');
	const log = useRuleExecutions(ruleId, status);
	const rows = log.data?.pages.flatMap((page) => page.data);
	return (
		<section class="rules-section execution-log" aria-labelledby="log-title">
			<div class="log-head">
				<h2 id="log-title">{t('rules.log')}</h2>
				<label for="log-status" class="visually-hidden">
					{t('rules.log.filter')}
				</label>
				<select id="log-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status | '')}>
					<option value="">{t('rules.log.all')}</option>
					{STATUSES.map((s) => (
						<option key={s} value={s}>
							{t(`rules.status.${s}`)}
						</option>
					))}
				</select>
				<button type="button" onClick={() => log.refetch()} disabled={log.isFetching}>
					{t('rules.log.refresh')}
				</button>
			</div>
			<p class="muted intro">{t('rules.log.intro')}</p>
			{log.isPending && <p class="muted">{t('common.loading')}</p>}
			{log.error && <Problem error={log.error} retry={() => log.refetch()} />}
			{rows?.length === 0 && <p class="muted empty-note">{t('rules.log.empty')}</p>}
			{rows && rows.length > 0 && (
				<div class="table-wrap">
					<table>
						<thead>
							<tr>
								<th scope="col">{t('rules.log.when')}</th>
								<th scope="col">{t('rules.log.outcome')}</th>
								<th scope="col">{t('rules.log.why')}</th>
								<th scope="col">{t('rules.log.conversation')}</th>
							</tr>
						</thead>
						<tbody>
							{rows.map((run) => (
								<ExecutionRow key={run.id} run={run} />
							))}
						</tbody>
					</table>
				</div>
			)}
			{log.hasNextPage && (
				<button type="button" disabled={log.isFetchingNextPage} onClick={() => log.fetchNextPage()}>
					{t('common.more')}
				</button>
			)}
		</section>
	);
}

function ExecutionRow({ run }: { run: Execution }) {
	const matched = run.status !== 'skipped';
	return (
		<tr data-status={run.status}>
			<td>
				<time dateTime={run.createdAt}>{when(run.createdAt)}</time>
				<div class="muted small">{run.eventType}</div>
			</td>
			<td>
				<span class={`badge ${run.status}`}>{matched ? t('rules.log.matched') : t('rules.log.skipped')}</span>
				{matched && <div class="muted small">{t(`rules.status.${run.status}`)}</div>}
			</td>
			<td>
				{run.reason && <span>{run.reason}</span>}
				{matched && (
					<ul class="outcomes">
						{run.actions.map((outcome, i) => (
							// Outcomes are positional: the n-th is the rule's n-th action.
							<li key={i} class={outcome.ok ? 'ok' : 'failed'}>
								{outcome.ok ? '✓' : '✗'} {actionName(outcome.type)}
								{outcome.error && <span class="muted"> — {outcome.error}</span>}
							</li>
						))}
					</ul>
				)}
			</td>
			<td>
				{run.conversationId ? (
					<Link href={`/conversations/${run.conversationId}`}>
						{t('rules.log.open', { id: run.conversationId.slice(-6) })}
					</Link>
				) : (
					<span class="muted">—</span>
				)}
			</td>
		</tr>
	);
}

function actionName(type: string): string {
	const known = [
		'send_message',
		'start_bot',
		'assign',
		'apply_tag',
		'update_contact',
		'create_task',
		'save_to_crm',
		'notify',
	] as const;
	const found = known.find((k) => k === type);
	return found ? t(`rules.action.${found}`) : type;
}
