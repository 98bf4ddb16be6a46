import type { Ref } from 'preact';
import type { Schemas } from '../api/client';
import { type SearchHit, useConversationSearch } from '../data/search';
import { contactLabel } from '../data/workspace';
import { t, when } from '../i18n';
import { Problem } from '../ui/problem';

type Snippet = Schemas['SearchSnippet'];
type Filters = Parameters<typeof useConversationSearch>[1];

/** The inbox's one search box: `/` focuses it (see Inbox), Escape empties it. */
export function SearchBox(props: { value: string; onInput(value: string): void; inputRef: Ref<HTMLInputElement> }) {
	return (
		<search class="search-box">
			<input
				ref={props.inputRef}
				type="search"
				aria-label={t('search.label')}
				placeholder={t('search.placeholder')}
				value={props.value}
				maxLength={200}
				onInput={(e) => props.onInput(e.currentTarget.value)}
				onKeyDown={(e) => {
					if (e.key === 'Escape') props.onInput('');
				}}
			/>
		</search>
	);
}

/**
 * A snippet with its matches in <mark>: each part is text of its own element, so nothing a customer wrote is
 * ever read as markup.
 */
export function Marked({ snippet }: { snippet: Snippet }) {
	return <>{snippet.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : part.text))}</>;
}

/** The hits of a search, each opening its conversation at what matched. */
export function SearchResults(props: {
	q: string;
	filters: Filters;
	openId?: string;
	/** The message the open conversation was opened at, if a message hit opened it. */
	openSeq?: number;
	onOpen(hit: SearchHit): void;
}) {
	const search = useConversationSearch(props.q, props.filters);
	const hits = search.data?.pages.flatMap((page) => page.data) ?? [];
	return (
		<div class="rows search-results" aria-busy={search.isFetching}>
			{search.error && <Problem error={search.error} retry={() => search.refetch()} />}
			{search.isSuccess && hits.length === 0 && (
				<p class="muted" style="padding: 12px">
					{t('search.none', { q: props.q })}
				</p>
			)}
			<ul class="hits" aria-label={t('search.results')}>
				{hits.map((hit) => (
					<li key={`${hit.conversation.id}:${hit.match.in === 'message' ? hit.match.seq : 'contact'}`}>
						<HitRow
							hit={hit}
							selected={
								hit.conversation.id === props.openId &&
								(hit.match.in === 'message' ? hit.match.seq === props.openSeq : props.openSeq === undefined)
							}
							onOpen={() => props.onOpen(hit)}
						/>
					</li>
				))}
			</ul>
			{search.hasNextPage && (
				<button type="button" class="more" disabled={search.isFetchingNextPage} onClick={() => search.fetchNextPage()}>
					{t('search.more')}
				</button>
			)}
		</div>
	);
}

function HitRow({ hit, selected, onOpen }: { hit: SearchHit; selected: boolean; onOpen(): void }) {
	const { conversation, match } = hit;
	const name = conversation.contact ? contactLabel(conversation.contact) : conversation.id.slice(-8);
	return (
		<button type="button" class="row hit" aria-current={selected} data-testid="search-hit" onClick={onOpen}>
			<div class="top">
				<strong class="name">
					{match.in === 'contact' && match.field === 'name' ? <Marked snippet={match.snippet} /> : name}
				</strong>
				<span class="muted time">{when(match.in === 'message' ? match.createdAt : conversation.lastActivityAt)}</span>
			</div>
			<div class="preview">
				{match.in === 'message' ? (
					<>
						{match.private && <span class="chip">{t('search.note')}</span>} <Marked snippet={match.snippet} />
					</>
				) : (
					<>
						{t(`search.inContact.${match.field}`)}: <Marked snippet={match.snippet} />
					</>
				)}
			</div>
			<div class="muted meta">
				{conversation.channel} · {t(`inbox.status.${conversation.status}`)}
			</div>
		</button>
	);
}
