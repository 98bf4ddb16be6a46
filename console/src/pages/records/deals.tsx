import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { useLocation, useSearch } from 'wouter-preact';
import { ApiError, api, changedElsewhere, ifMatch, ok, okVersioned, type Schemas } from '../../api/client';
import { operatorName, useDirectory } from '../../api/queries';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { DealDetail, loadDeal } from './deal-detail';

type Deal = Schemas['Deal'];
type Funnel = Schemas['Funnel'];

/** The most open deals a board shows per funnel (the API's pages, read until there are no more). */
const BOARD_LIMIT = 500;

async function openDeals(funnelId: string): Promise<Deal[]> {
	const all: Deal[] = [];
	let cursor: string | undefined;
	do {
		const page = await ok(
			api.GET('/v3/deals', {
				params: { query: { funnelId, status: 'open', limit: 100, ...(cursor ? { cursor } : {}) } },
			}),
		);
		all.push(...page.data);
		cursor = page.nextCursor ?? undefined;
	} while (cursor && all.length < BOARD_LIMIT);
	return all;
}

export function money(deal: Pick<Deal, 'value' | 'currency'>): string {
	if (deal.value === null) return '';
	const amount = deal.value / 100;
	return deal.currency
		? new Intl.NumberFormat(undefined, { style: 'currency', currency: deal.currency }).format(amount)
		: String(amount);
}

/**
 * Deals as a board per funnel: a column per stage, each open deal a card. Dragging a card to another column
 * (or choosing its stage in the card's menu, for keyboards) moves it, which announces `deal.stage_changed`
 * to bots, rules and webhooks. A card opens the deal beside the board.
 */
export function DealsBoard() {
	const client = useQueryClient();
	const [, navigate] = useLocation();
	const openId = new URLSearchParams(useSearch()).get('deal');
	const funnels = useQuery({
		queryKey: ['funnels'],
		queryFn: async () => (await ok(api.GET('/v3/funnels', { params: { query: { limit: 100 } } }))).data,
	});
	const [chosen, setChosen] = useState('');
	const funnel: Funnel | undefined = funnels.data?.find((f) => f.id === chosen) ?? funnels.data?.[0];
	const deals = useQuery({
		queryKey: ['deals', { funnelId: funnel?.id, board: true }],
		queryFn: () => openDeals(funnel?.id ?? ''),
		enabled: Boolean(funnel),
	});
	const boardKey = ['deals', { funnelId: funnel?.id, board: true }];
	const move = useMutation({
		// The move applies to the deal as its card shows it: the list carries no version of each deal, so the
		// deal's own read gives it (its ETag), but only while it is still the one drawn (the same `updatedAt`);
		// a deal changed since is refused like a 412 from the API, and the board is drawn again.
		mutationFn: async ({ deal, stageId }: { deal: Deal; stageId: string }) => {
			const current = await loadDeal(deal.id);
			if (current.updatedAt !== deal.updatedAt) throw new ApiError(412, t('common.changedElsewhere'));
			const at = { params: { path: { id: deal.id } } };
			const moved = await okVersioned(
				api.PATCH('/v3/deals/{id}', { ...at, body: { stage: stageId }, ...ifMatch(current.etag) }),
			);
			client.setQueryData(['deal', deal.id], moved);
			// The card takes the deal as moved, so a next move of it before the board is read again is not taken
			// for someone else's change.
			const { etag: _version, ...now } = moved;
			client.setQueryData<Deal[]>(boardKey, (all) => all?.map((d) => (d.id === deal.id ? now : d)));
		},
		// The card moves at once; a refusal puts back that card alone (other moves made meanwhile stay), with the
		// API's message. A refetch already on its way is cancelled first, or it would draw the board from before.
		onMutate: async ({ deal, stageId }) => {
			await client.cancelQueries({ queryKey: boardKey });
			const stage = funnel?.stages.find((s) => s.id === stageId);
			const moveTo = (to: Deal['stage']) =>
				client.setQueryData<Deal[]>(boardKey, (all) => all?.map((d) => (d.id === deal.id ? { ...d, stage: to } : d)));
			if (stage) moveTo({ ...deal.stage, id: stage.id, name: stage.name });
			return { undo: () => moveTo(deal.stage) };
		},
		onError: (error, { deal }, context) => {
			context?.undo();
			if (changedElsewhere(error)) void client.invalidateQueries({ queryKey: ['deal', deal.id] });
		},
		onSettled: () => client.invalidateQueries({ queryKey: ['deals'] }),
	});

	return (
		<div class={`board-page${openId ? ' has-open' : ''}`}>
			<section class="board-area" aria-label={t('deals.title')}>
				<div class="board-head">
					<h1>{t('deals.title')}</h1>
					<label class="inline">
						<span>{t('deals.funnel')}</span>
						<select value={funnel?.id ?? ''} onChange={(e) => setChosen(e.currentTarget.value)}>
							{funnels.data?.map((f) => (
								<option key={f.id} value={f.id}>
									{f.name}
								</option>
							))}
						</select>
					</label>
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
