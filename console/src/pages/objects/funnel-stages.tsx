import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { moved, useFunnelChanges } from '../../data/funnels';
import { t } from '../../i18n';
import { Editable } from '../../ui/editable';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid } from '../settings/form';

type Funnel = Schemas['Funnel'];
type Stage = Funnel['stages'][number];

/**
 * A funnel's stages in order: each renamed in place, moved by dragging it (a pointer) or by its Move up and
 * Move down buttons (a keyboard), which keep the focus on the button pressed and say where the stage went;
 * deleted with the stage its deals move to. Every order is saved whole (`stageOrder`), as the API takes it.
 */
export function StageList({ funnel }: { funnel: Funnel }) {
	const changes = useFunnelChanges();
	const [dragging, setDragging] = useState<number | null>(null);
	const [said, setSaid] = useState('');
	const focusAfter = useRef<string | null>(null);
	const order = funnel.stages.map((s) => s.id);
	// The button pressed keeps the focus once the stages are drawn in their new order (moving a row may take it
	// away); at the top or the bottom, where that button is off, its other way takes it.
	useEffect(() => {
		const id = focusAfter.current;
		focusAfter.current = null;
		const button = id ? (document.getElementById(id) as HTMLButtonElement | null) : null;
		if (!button) return;
		const other = button.parentElement?.querySelector<HTMLButtonElement>('button.move:not(:disabled)');
		(button.disabled ? other : button)?.focus();
	}, [order.join()]);
	const move = (from: number, to: number) => {
		const stage = funnel.stages[from];
		// One order at a time: the next is computed from the funnel as the API last answered it.
		if (!stage || to < 0 || to >= order.length || from === to || changes.reorder.isPending) return;
		changes.reorder.mutate(
			{ id: funnel.id, stageOrder: moved(order, from, to) },
			{ onSuccess: () => setSaid(t('funnels.stage.moved', { name: stage.name, position: to + 1 })) },
		);
	};
	const error = changes.reorder.error ?? changes.renameStage.error ?? changes.removeStage.error;
	return (
		<>
			<ol class="stage-list" aria-label={t('funnels.stages')}>
				{funnel.stages.map((stage, index) => (
					<li
						key={stage.id}
						class={`stage-row${dragging === index ? ' dragging' : ''}`}
						data-testid="stage"
						draggable
						onDragStart={(e) => {
							setDragging(index);
							e.dataTransfer?.setData('application/x-parley-stage', String(index));
						}}
						onDragEnd={() => setDragging(null)}
						onDragOver={(e) => e.preventDefault()}
						onDrop={(e) => {
							e.preventDefault();
							const from = Number(e.dataTransfer?.getData('application/x-parley-stage'));
							setDragging(null);
							if (Number.isInteger(from)) move(from, index);
						}}
					>
						<span class="grip" aria-hidden="true" title={t('funnels.stage.drag', { name: stage.name })}>
							⠿
						</span>
						<div class="stage-name">
							<Editable
								label={t('funnels.stage.name', { name: stage.name })}
								value={stage.name}
								onSave={(name) => changes.renameStage.mutateAsync({ id: funnel.id, stageId: stage.id, name })}
							/>
						</div>
						<div class="actions">
							{(['up', 'down'] as const).map((way) => {
								const to = way === 'up' ? index - 1 : index + 1;
								const label = t(`funnels.stage.${way}`, { name: stage.name });
								return (
									<button
										key={way}
										type="button"
										aria-label={label}
										title={label}
										// Never disabled while an order saves: a disabled button would lose the keyboard's focus.
										disabled={to < 0 || to >= order.length}
										id={`stage-${stage.id}-${way}`}
										class="move"
										onClick={() => {
											focusAfter.current = `stage-${stage.id}-${way}`;
											move(index, to);
										}}
									>
										{way === 'up' ? '↑' : '↓'}
									</button>
								);
							})}
							<RemoveStage funnel={funnel} stage={stage} />
						</div>
					</li>
				))}
			</ol>
			<p class="visually-hidden" role="status">
				{said}
			</p>
			{error && <Problem error={error} />}
			<AddStage funnel={funnel} />
		</>
	);
}

/** Delete, after choosing where its deals go (the API refuses a stage with deals without one). */
function RemoveStage({ funnel, stage }: { funnel: Funnel; stage: Stage }) {
	const { removeStage } = useFunnelChanges();
	const others = funnel.stages.filter((s) => s.id !== stage.id);
	const [open, setOpen] = useState(false);
	const [to, setTo] = useState(others[0]?.id ?? '');
	const id = `move-deals-${stage.id}`;
	if (!open)
		return (
			<button type="button" class="danger" onClick={() => setOpen(true)}>
				{t('funnels.stage.delete', { name: stage.name })}
			</button>
		);
	return (
		<span class="remove-stage">
			<label for={id}>{t('funnels.stage.moveDealsTo')}</label>
			<select id={id} value={to} onChange={(e) => setTo(e.currentTarget.value)}>
				{others.map((s) => (
					<option key={s.id} value={s.id}>
						{s.name}
					</option>
				))}
			</select>
			<button
				type="button"
				class="danger"
				disabled={removeStage.isPending}
				onClick={() =>
					confirm(t('funnels.stage.deleteConfirm', { name: stage.name })) &&
					removeStage.mutate({ id: funnel.id, stageId: stage.id, moveDealsTo: to })
				}
			>
				{t('common.delete')}
			</button>
			<button type="button" onClick={() => setOpen(false)}>
				{t('common.cancel')}
			</button>
			{removeStage.error && <Problem error={removeStage.error} />}
		</span>
	);
}

function AddStage({ funnel }: { funnel: Funnel }) {
	const { addStage } = useFunnelChanges();
	const [name, setName] = useState('');
	const problems = fieldProblems(addStage.error);
	const id = `new-stage-${funnel.id}`;
	return (
		<form
			class="inline-form"
			noValidate
			onSubmit={(e) => {
				e.preventDefault();
				addStage.mutate({ id: funnel.id, name }, { onSuccess: () => setName('') });
			}}
		>
			<label for={id}>{t('funnels.stage.add')}</label>
			<input
				id={id}
				value={name}
				onInput={(e) => setName(e.currentTarget.value)}
				{...invalid(id, problems.get('name'))}
			/>
			<button type="submit" disabled={addStage.isPending}>
				{t('funnels.stage.add.submit')}
			</button>
			<FieldProblem id={id} message={problems.get('name')} />
			{addStage.error !== null && problems.size === 0 && <Problem error={addStage.error} />}
		</form>
	);
}
