/**
 * Automation › Rules: every rule in the order it runs, with its trigger, a switch to turn it on or off, how
 * often it ran lately (of the workspace's last 100 executions) and when, and Edit, Duplicate (a disabled copy,
 * so the copy does not fire twice before it is changed) and Delete (confirmed).
 */
import { Link, useLocation } from 'wouter-preact';
import type { Schemas } from '../../api/client';
import { useRecentExecutions, useRuleChanges, useRules } from '../../data/rules';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';
import { DeleteButton, EnabledSwitch } from './fields';

type Rule = Schemas['AutomationRule'];

export function RulesListPage() {
	const rules = useRules();
	const recent = useRecentExecutions();
	const runs = new Map<string, { n: number; skipped: number; last: string }>();
	for (const run of recent.data?.data ?? []) {
		const seen = runs.get(run.ruleId) ?? { n: 0, skipped: 0, last: run.createdAt };
		runs.set(run.ruleId, {
			n: seen.n + 1,
			skipped: seen.skipped + (run.status === 'skipped' ? 1 : 0),
			last: seen.last,
		});
	}
	return (
		<div class="page rules-page">
			<header class="rules-header">
				<div>
					<h1>{t('rules.title')}</h1>
					<p class="muted">{t('rules.intro')}</p>
				</div>
				<Link href="/rules/new" class="button primary">
					{t('rules.new')}
				</Link>
			</header>
			{rules.isPending && <p class="muted">{t('common.loading')}</p>}
			{rules.error && <Problem error={rules.error} retry={() => rules.refetch()} />}
			{rules.data?.data.length === 0 && (
				<div class="empty-state">
					<p>{t('rules.empty')}</p>
					<Link href="/rules/new" class="button primary">
						{t('rules.new')}
					</Link>
				</div>
			)}
			{rules.data && rules.data.data.length > 0 && (
				<div class="table-wrap">
					<table class="rules-table">
						<thead>
							<tr>
								<th scope="col">{t('rules.name')}</th>
								<th scope="col">{t('rules.trigger')}</th>
								<th scope="col">{t('rules.enabled')}</th>
								<th scope="col">{t('rules.recent')}</th>
								<th scope="col">
									<span class="visually-hidden">{t('rules.actionsColumn')}</span>
								</th>
							</tr>
						</thead>
						<tbody>
							{rules.data.data.map((rule) => (
								<RuleRow key={rule.id} rule={rule} runs={runs.get(rule.id)} />
							))}
						</tbody>
					</table>
				</div>
			)}
		</div>
	);
}

function RuleRow({ rule, runs }: { rule: Rule; runs: { n: number; skipped: number; last: string } | undefined }) {
	const [, navigate] = useLocation();
	const { toggle, duplicate, remove } = useRuleChanges(rule.id, (copy) => navigate(`/rules/${copy.id}`));
	const copy = () =>
		duplicate.mutate({
			name: t('rules.copyOf', { name: rule.name }).slice(0, 100),
			enabled: false,
			priority: rule.priority,
			trigger: rule.trigger,
			// The API takes the rule's own condition (null: none); the generated type lost that null.
			condition: rule.condition as Schemas['Condition'],
			actions: rule.actions,
		});
	const error = toggle.error ?? duplicate.error ?? remove.error;
	return (
		<tr>
			<th scope="row">
				<Link href={`/rules/${rule.id}`}>{rule.name}</Link>
				{error && <Problem error={error} />}
			</th>
			<td>{t(`rules.trigger.${rule.trigger.kind}`)}</td>
			<td>
				<EnabledSwitch
					name={rule.name}
					enabled={rule.enabled}
					busy={toggle.isPending}
					onChange={(on) => toggle.mutate(on)}
				/>
			</td>
			<td>
				{runs ? (
					<>
						{t('rules.runs', { n: runs.n, skipped: runs.skipped })}
						<div class="muted small">{t('rules.lastRun', { when: when(runs.last) })}</div>
					</>
				) : (
					<span class="muted">{t('rules.noRuns')}</span>
				)}
			</td>
			<td class="row-actions">
				<Link href={`/rules/${rule.id}`} class="button">
					{t('rules.edit')}
				</Link>
				<button type="button" disabled={duplicate.isPending} onClick={copy}>
					{t('rules.duplicate')}
				</button>
				<DeleteButton name={rule.name} busy={remove.isPending} onDelete={() => remove.mutate()} />
			</td>
		</tr>
	);
}
