/**
 * Automation › Assignment: the auto-assignment rules in the order they are tried (highest priority first),
 * each on or off, moved up or down (which rewrites the priorities to follow the new order), edited in place,
 * deleted (confirmed); a new rule; the operators' capacities; and the conversations waiting for an operator.
 */
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import {
	useAssignmentQueue,
	useAssignmentRuleChanges,
	useAssignmentRules,
	useReprioritize,
} from '../../data/assignment';
import { groupName, useDirectory } from '../../data/workspace';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';
import { AssignmentEditor, AssignmentForm, type AssignmentRule } from './assignment-form';
import { Capacities } from './capacities';
import { moved } from './draft';
import { DeleteButton, EnabledSwitch } from './fields';

/** Priorities that follow `order` (10 apart, the first highest), for the rules whose priority must change. */
export function reprioritized(order: readonly AssignmentRule[]): Array<{ id: string; priority: number }> {
	return order
		.map((rule, i) => ({ id: rule.id, priority: (order.length - i) * 10, was: rule.priority }))
		.filter((r) => r.priority !== r.was)
		.map(({ id, priority }) => ({ id, priority }));
}

export function AssignmentPage() {
	const rules = useAssignmentRules();
	const [editing, setEditing] = useState<string | null>(null);
	const list = rules.data?.data ?? [];
	const reorder = useReprioritize();
	const top = Math.min(1000, Math.max(0, ...list.map((r) => r.priority)) + 10);
	return (
		<div class="page rules-page">
			<header class="rules-header">
				<div>
					<h1>{t('assignment.title')}</h1>
					<p class="muted">{t('assignment.intro')}</p>
				</div>
				{editing !== 'new' && (
					<button type="button" class="primary" onClick={() => setEditing('new')}>
						{t('assignment.new')}
					</button>
				)}
			</header>
			{editing === 'new' && (
				<section class="rules-section" aria-labelledby="asg-new-title">
					<h2 id="asg-new-title">{t('assignment.new')}</h2>
					<AssignmentForm rule={null} priority={top} onDone={() => setEditing(null)} />
				</section>
			)}
			<section class="rules-section" aria-labelledby="asg-rules-title">
				<h2 id="asg-rules-title">{t('assignment.rules')}</h2>
				<p class="muted intro">{t('assignment.rules.intro')}</p>
				{rules.isPending && <p class="muted">{t('common.loading')}</p>}
				{rules.error && <Problem error={rules.error} retry={() => rules.refetch()} />}
				{reorder.error && <Problem error={reorder.error} />}
				{list.length === 0 && rules.isSuccess && <p class="muted empty-note">{t('assignment.empty')}</p>}
				<ol class="assignment-rules">
					{list.map((rule, i) => (
						<li key={rule.id} aria-label={rule.name}>
							{editing === rule.id ? (
								<AssignmentEditor id={rule.id} onDone={() => setEditing(null)} />
							) : (
								<RuleSummary
									rule={rule}
									n={i + 1}
									first={i === 0}
									last={i === list.length - 1}
									busy={reorder.isPending}
									onMove={(by) => reorder.mutate(reprioritized(moved(list, i, by)))}
									onEdit={() => setEditing(rule.id)}
								/>
							)}
						</li>
					))}
				</ol>
			</section>
			<Capacities />
			<Queue />
		</div>
	);
}

function RuleSummary(props: {
	rule: AssignmentRule;
	n: number;
	first: boolean;
	last: boolean;
	busy: boolean;
	onMove: (by: number) => void;
	onEdit: () => void;
}) {
	const { rule } = props;
	const directory = useDirectory().data;
	const { toggle, remove } = useAssignmentRuleChanges(rule.id);
	const { policy } = rule;
	const options = [
		policy.groupId ? t('assignment.inGroup', { name: groupName(directory, policy.groupId) }) : null,
		policy.onlyOnline ? t('assignment.onlyOnline') : null,
		policy.considerBusinessHours ? t('assignment.businessHours') : null,
		rule.condition ? t('assignment.conditional') : null,
	].filter(Boolean);
	return (
		<div class={`assignment-summary ${rule.enabled ? '' : 'off'}`}>
			<span class="step" title={t('rules.priority')}>
				{props.n}
			</span>
			<div class="summary-text">
				<strong>{rule.name}</strong>
				<div class="muted small">
					{t(`assignment.strategy.${policy.strategy}`)} · {t('assignment.priorityN', { n: rule.priority })}
					{options.length > 0 && ` · ${options.join(' · ')}`}
				</div>
				{(toggle.error || remove.error) && <Problem error={toggle.error ?? remove.error} />}
			</div>
			<EnabledSwitch
				name={rule.name}
				enabled={rule.enabled}
				busy={toggle.isPending}
				onChange={(on) => toggle.mutate(on)}
			/>
			<div class="move">
				<button
					type="button"
					class="icon"
					disabled={props.first || props.busy}
					aria-label={t('assignment.up', { name: rule.name })}
					title={t('assignment.up', { name: rule.name })}
					onClick={() => props.onMove(-1)}
				>
					↑
				</button>
				<button
					type="button"
					class="icon"
					disabled={props.last || props.busy}
					aria-label={t('assignment.down', { name: rule.name })}
					title={t('assignment.down', { name: rule.name })}
					onClick={() => props.onMove(1)}
				>
					↓
				</button>
			</div>
			<button type="button" aria-label={t('assignment.editNamed', { name: rule.name })} onClick={props.onEdit}>
				{t('rules.edit')}
			</button>
			<DeleteButton name={rule.name} busy={remove.isPending} onDelete={() => remove.mutate()} />
		</div>
	);
}

/** The conversations waiting for an operator, longest first (read only; refreshed every 10 seconds). */
function Queue() {
	const queue = useAssignmentQueue();
	return (
		<section class="rules-section" aria-labelledby="asg-queue-title">
			<h2 id="asg-queue-title">{t('assignment.queue')}</h2>
			<p class="muted intro">{t('assignment.queue.intro')}</p>
			{queue.isPending && <p class="muted">{t('common.loading')}</p>}
			{queue.error && <Problem error={queue.error} retry={() => queue.refetch()} />}
			{queue.data?.data.length === 0 && <p class="muted empty-note">{t('assignment.queue.empty')}</p>}
			<ol class="queue-list">
				{queue.data?.data.map((waiting) => (
					<li key={waiting.conversationId}>
						<Link href={`/conversations/${waiting.conversationId}`}>
							{t('rules.log.open', { id: waiting.conversationId.slice(-6) })}
						</Link>
						<span class="muted small">{t('assignment.queue.since', { when: when(waiting.since) })}</span>
					</li>
				))}
			</ol>
		</section>
	);
}
