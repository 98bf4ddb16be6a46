/**
 * A Decision's way out in words, for the canvas: the branch a run took as "Branch 1: The last answer is
 * Support" (its condition summed up with the facts' and operators' own names), the default as "Otherwise".
 */
import { t } from '../../i18n';
import type { Operator } from '../rules/draft';
import { recordFacts } from '../rules/facts';
import type { Step } from './schema';

interface Leaf {
	fact: string;
	operator: Operator;
	value?: unknown;
}
type Condition = Leaf | { all: Condition[] } | { any: Condition[] } | { not: Condition };

function factLabel(path: string): string {
	if (path === 'answer') return t('builder.fact.answer');
	if (path.startsWith('vars.')) return path.slice('vars.'.length);
	return recordFacts(undefined).find((fact) => fact.path === path)?.label ?? path;
}

function valueText(value: unknown): string {
	if (value === true) return t('rules.value.yes');
	if (value === false) return t('rules.value.no');
	if (Array.isArray(value)) return value.map(valueText).join(', ');
	return value === undefined || value === null ? '' : String(value);
}

/** A condition as a sentence: "The last answer is Support and Within business hours is Yes". */
export function conditionText(condition: Condition): string {
	if ('all' in condition) return condition.all.map(conditionText).join(t('builder.cond.and'));
	if ('any' in condition) return condition.any.map(conditionText).join(t('builder.cond.or'));
	if ('not' in condition) return t('builder.cond.not', { condition: conditionText(condition.not) });
	return [factLabel(condition.fact), t(`rules.op.${condition.operator}`), valueText(condition.value)]
		.filter((part) => part !== '')
		.join(' ');
}

/** What a decision's log output (`{ branch: 0 }` or `default`) says, in words; null for another step. */
export function decisionNote(step: Step, output: unknown): string | null {
	if (step.type !== 'decision') return null;
	if (output === 'default') return t('builder.outlet.default');
	const index = (output as { branch?: unknown } | null)?.branch;
	const branches = step.branches as Array<{ condition: Condition }> | undefined;
	const branch = typeof index === 'number' ? branches?.[index] : undefined;
	if (!branch || typeof index !== 'number') return null;
	return t('builder.branchTaken', { n: index + 1, condition: conditionText(branch.condition) });
}
