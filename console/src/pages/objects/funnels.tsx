import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { Schemas } from '../../api/client';
import { useFunnelChanges } from '../../data/funnels';
import { useBoardFunnels } from '../../data/workspace';
import { t } from '../../i18n';
import { Editable } from '../../ui/editable';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, problemUnder, Section } from '../settings/form';
import { StageList } from './funnel-stages';

type Funnel = Schemas['Funnel'];

/**
 * Deals › Manage funnels: each funnel renamed in place and deleted (the API refuses one with deals), its stages
 * added, renamed, ordered and deleted; a new funnel with its first stages below.
 */
export function FunnelsPage() {
	const funnels = useBoardFunnels();
	return (
		<div class="page settings-page objects-page">
			<header class="settings-header">
				<h1>{t('funnels.title')}</h1>
				<p class="muted">
					{t('funnels.intro')} <Link href="/deals">{t('deals.title')}</Link>
				</p>
			</header>
			{funnels.error && <Problem error={funnels.error} retry={() => funnels.refetch()} />}
			{funnels.data?.length === 0 && <p class="muted">{t('funnels.none')}</p>}
			{funnels.data?.map((funnel) => (
				<FunnelSection key={funnel.id} funnel={funnel} />
			))}
			<NewFunnel />
		</div>
	);
}

function FunnelSection({ funnel }: { funnel: Funnel }) {
	const { rename, remove } = useFunnelChanges();
	return (
		<section class="settings-section funnel" aria-label={funnel.name} data-testid="funnel">
			<div class="member-row">
				<div class="who">
					<Editable
						label={t('funnels.name')}
						value={funnel.name}
						onSave={(name) => rename.mutateAsync({ id: funnel.id, name })}
					/>
				</div>
				<div class="actions">
					<button
						type="button"
						class="danger"
						disabled={remove.isPending}
						onClick={() => confirm(t('funnels.deleteConfirm', { name: funnel.name })) && remove.mutate(funnel.id)}
					>
						{t('funnels.delete', { name: funnel.name })}
					</button>
				</div>
			</div>
			{remove.error && <Problem error={remove.error} />}
			<StageList funnel={funnel} />
		</section>
	);
}

function NewFunnel() {
	const { create } = useFunnelChanges();
	const [name, setName] = useState('');
	const [stages, setStages] = useState('');
	const submit = useSubmit(async () => {
		const lines = stages
			.split('\n')
			.map((s) => s.trim())
			.filter(Boolean);
		await create.mutateAsync({ name, stages: lines });
		setName('');
		setStages('');
	});
	const problems = fieldProblems(submit.error);
	const stagesProblem = problemUnder(problems, 'stages');
	return (
		<Section id="new-funnel" title={t('funnels.create')}>
			<form
				noValidate
				onSubmit={(e) => {
					e.preventDefault();
					void submit.submit();
				}}
			>
				<div class="field">
					<label for="new-funnel-name">{t('funnels.name')}</label>
					<input
						id="new-funnel-name"
						value={name}
						onInput={(e) => setName(e.currentTarget.value)}
						{...invalid('new-funnel-name', problems.get('name'))}
					/>
					<FieldProblem id="new-funnel-name" message={problems.get('name')} />
				</div>
				<div class="field">
					<label for="new-funnel-stages">{t('funnels.stages')}</label>
					<textarea
						id="new-funnel-stages"
						rows={4}
						value={stages}
						onInput={(e) => setStages(e.currentTarget.value)}
						{...invalid('new-funnel-stages', stagesProblem)}
					/>
					<FieldProblem id="new-funnel-stages" message={stagesProblem} />
				</div>
				{submit.error !== null && problems.size === 0 && <Problem error={submit.error} />}
				<div class="actions">
					<button type="submit" class="primary" disabled={submit.busy}>
						{t('funnels.create.submit')}
					</button>
				</div>
			</form>
		</Section>
	);
}
