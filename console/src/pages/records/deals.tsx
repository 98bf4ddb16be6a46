import { useState } from 'preact/hooks';
import { Link, useLocation, useSearch } from 'wouter-preact';
import { changedElsewhere, type Schemas } from '../../api/client';
import { useBoardDeals, useMoveDeal } from '../../data/crm';
import { operatorName, useBoardFunnels, useDirectory } from '../../data/workspace';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { DealDetail } from './deal-detail';
import { money } from './money';
import { NewDeal } from './new-deal';

type Deal = Schemas['Deal'];
type Funnel = Schemas['Funnel'];

/**
 * Deals as a board per funnel: a column per stage, each open deal a card. Dragging a card to another column
 * (or choosing its stage in the card's menu, for keyboards) moves it, which announces `deal.stage_changed`
 * to bots, rules and webhooks. A card opens the deal beside the board.
 */
export function DealsBoard() {
	const [, navigate] = useLocation();
	const search = new URLSearchParams(useSearch());
	const openId = search.get('deal');
	// A new deal opens beside the board, from here or from a contact (`?new=1&contact=…`).
	const creating = search.get('new') === '1';
	const funnels = useBoardFunnels();
	const [chosen, setChosen] = useState('');
	const funnel: Funnel | undefined = funnels.data?.find((f) => f.id === chosen) ?? funnels.data?.[0];
	const deals = useBoardDeals(funnel);
	const move = useMoveDeal(funnel);

	return (
		<div class={`board-page${openId || creating ? ' has-open' : ''}`}>
			<section class="board-area" aria-label={t('deals.title')}>
				<div class="board-head">
					<h1>{t('deals.title')}</h1>
					{/* The select's own name: a label around it would also read out the option it shows ("Funnel Retail"). */}
					<label class="inline">
						<span>{t('deals.funnel')}</span>
						<select
							aria-label={t('deals.funnel')}
							value={funnel?.id ?? ''}
							onChange={(e) => setChosen(e.currentTarget.value)}
						>
							{funnels.data?.map((f) => (
								<option key={f.id} value={f.id}>
									{f.name}
								</option>
							))}
						</select>
					</label>
					<button
						type="button"
						class="primary"
						disabled={!funnels.data?.length}
						onClick={() => navigate('/deals?new=1')}
					>
						{t('deals.new')}
					</button>
					<Link href="/deals/funnels">{t('deals.manageFunnels')}</Link>
				</div>
				{funnels.error && <Problem error={funnels.error} retry={() => funnels.refetch()} />}
				{deals.error && <Problem error={deals.error} retry={() => deals.refetch()} />}
				{move.error &&
					(changedElsewhere(move.error) ? (
						<p class="error" role="alert">
							{t('deals.movedElsewhere', { name: move.variables?.deal.name ?? '' })}
						</p>
					) : (
						<Problem error={move.error} />
					))}
				{funnels.data?.length === 0 && <p class="muted">{t('deals.noFunnels')}</p>}
				{funnel && (
					<div class="board">
						{funnel.stages.map((stage) => (
							<StageColumn
								key={stage.id}
								stage={stage}
								stages={funnel.stages}
								deals={deals.data?.filter((d) => d.stage.id === stage.id) ?? []}
								onMove={(deal, stageId) => deal.stage.id !== stageId && move.mutate({ deal, stageId })}
								onOpen={(deal) => navigate(`/deals?deal=${deal.id}`)}
							/>
						))}
					</div>
				)}
			</section>
			{openId && <DealDetail key={openId} id={openId} onClose={() => navigate('/deals')} />}
			{creating && !openId && funnels.data && (
				<NewDeal
					funnels={funnels.data}
					funnelId={funnel?.id}
					contactId={search.get('contact')}
					onCreated={(id) => navigate(`/deals?deal=${id}`)}
					onClose={() => navigate('/deals')}
				/>
			)}
		</div>
	);
}

function StageColumn(props: {
	stage: Funnel['stages'][number];
	stages: Funnel['stages'];
	deals: Deal[];
	onMove(deal: Deal, stageId: string): void;
	onOpen(deal: Deal): void;
}) {
	const directory = useDirectory();
	const [over, setOver] = useState(false);
	return (
		<section
			class={`stage${over ? ' drop-target' : ''}`}
			aria-label={props.stage.name}
			data-stage={props.stage.id}
			onDragOver={(e) => {
				e.preventDefault();
				setOver(true);
			}}
			onDragLeave={() => setOver(false)}
			onDrop={(e) => {
				e.preventDefault();
				setOver(false);
				const deal = JSON.parse(e.dataTransfer?.getData('application/x-parley-deal') || 'null') as Deal | null;
				if (deal) props.onMove(deal, props.stage.id);
			}}
		>
			<h2>
				{props.stage.name} <span class="muted">{props.deals.length}</span>
			</h2>
			{props.deals.map((deal) => (
				<article
					key={deal.id}
					class="deal-card"
					draggable
					aria-label={deal.name}
					onDragStart={(e) => e.dataTransfer?.setData('application/x-parley-deal', JSON.stringify(deal))}
				>
					<button type="button" class="link" onClick={() => props.onOpen(deal)}>
						{deal.name}
					</button>
					<div class="muted small">
						{money(deal)}
						{deal.ownerId && ` · ${operatorName(directory.data, deal.ownerId)}`}
					</div>
					<label class="visually-hidden" for={`move-${deal.id}`}>
						{t('deals.moveTo', { name: deal.name })}
					</label>
					<select
						id={`move-${deal.id}`}
						class="move"
						value={deal.stage.id}
						onChange={(e) => props.onMove(deal, e.currentTarget.value)}
					>
						{props.stages.map((s) => (
							<option key={s.id} value={s.id}>
								{s.name}
							</option>
						))}
					</select>
				</article>
			))}
		</section>
	);
}
