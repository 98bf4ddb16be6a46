import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation, useSearch } from 'wouter-preact';
import type { Schemas } from '../api/client';
import { useConversationList, useRefreshConversationLists } from '../data/conversations';
import { searchText } from '../data/search';
import type { ConsoleSession } from '../data/session';
import { contactLabel, type Directory, operatorName, useDirectory } from '../data/workspace';
import { useFeedEvent } from '../feed';
import { t, when } from '../i18n';
import { useShortcuts } from '../ui/hooks';
import { consoleAuthor, previewText } from '../ui/message-text';
import { Problem } from '../ui/problem';
import { ConversationView } from './conversation';
import { filterQuery, InboxFilterBar, type InboxFilters, listQuery, savedFilters, saveFilters } from './inbox-filters';
import { SearchBox, SearchResults } from './inbox-search';

type Row = Schemas['ConversationRow'];

const ROW_HEIGHT = 76;

/**
 * Events of the inbox feed that change nothing a list shows: every other type the feed carries (LIVE_FEED_TYPES
 * in src/model/events.ts) is about a conversation, its messages, tags or contact.
 */
const NOT_LISTED = new Set(['member.status_changed', 'rule.notification', 'bot.notification']);

/**
 * The inbox: the views operators expect (mine, unassigned, all) with status, tag, group, channel and origin
 * filters; a virtualised list (only the rows on screen exist, so ten thousand scroll like ten) kept live by
 * the workspace's feed; one search box over messages and contacts, whose hits open a conversation at what
 * matched (`?seq=`); and the open conversation. Keys (outside a text field): j / k next and previous, / search.
 */
export function Inbox({ session, openId }: { session: ConsoleSession; openId?: string }) {
	const [filters, setFilters] = useState<InboxFilters>(savedFilters);
	const [, navigate] = useLocation();
	const refreshLists = useRefreshConversationLists();
	const directory = useDirectory();
	const query = filterQuery(filters, session.operator.id);
	const list = useConversationList(listQuery(filters, session.operator.id));
	const [typed, setTyped] = useState('');
	const searched = useDebounced(searchText(typed), 250);
	const searchInput = useRef<HTMLInputElement>(null);
	const focusSeq = Number(new URLSearchParams(useSearch()).get('seq')) || undefined;
	const rows = useMemo(() => list.data?.pages.flatMap((page) => page.data) ?? [], [list.data]);
	const changeFilters = (next: InboxFilters) => {
		saveFilters(next);
		setFilters(next);
	};

	// Any change to a conversation refreshes the lists, at most every half second: the first change starts the
	// wait and the ones during it ride along, so a busy workspace still refreshes (a debounce would starve).
	const pending = useRef<ReturnType<typeof setTimeout>>();
	useFeedEvent((event) => {
		if (event !== 'reconnected' && NOT_LISTED.has(event.type)) return;
		if (pending.current) return;
		pending.current = setTimeout(() => {
			pending.current = undefined;
			refreshLists();
		}, 500);
	});
	useEffect(() => () => clearTimeout(pending.current), []);

	const scroller = useRef<HTMLDivElement>(null);
	const virtual = useVirtualizer({
		count: rows.length,
		getScrollElement: () => scroller.current,
		estimateSize: () => ROW_HEIGHT,
		overscan: 8,
	});
	const items = virtual.getVirtualItems();
	const last = items.at(-1);
	useEffect(() => {
		if (last && last.index >= rows.length - 20 && list.hasNextPage && !list.isFetchingNextPage)
			void list.fetchNextPage();
	}, [last, rows.length, list]);

	const openIndex = rows.findIndex((row) => row.id === openId);
	const open = (index: number) => {
		const row = rows[index];
		if (!row) return;
		virtual.scrollToIndex(index);
		navigate(`/conversations/${row.id}`);
	};
	const next = () => open(Math.min(rows.length - 1, openIndex + 1));
	const previous = () => open(Math.max(0, openIndex - 1));
	useShortcuts({ j: next, ArrowDown: next, k: previous, ArrowUp: previous, '/': () => searchInput.current?.focus() });

	return (
		<div class={`inbox${openId ? ' has-open' : ''}`}>
			<section class="list-pane" aria-label={t('inbox.list')}>
				<SearchBox value={typed} onInput={setTyped} inputRef={searchInput} />
				<InboxFilterBar filters={filters} onChange={changeFilters} />
				{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
				{searched && (
					<SearchResults
						q={searched}
						filters={query}
						openId={openId}
						openSeq={focusSeq}
						onOpen={(hit) =>
							navigate(
								`/conversations/${hit.conversation.id}${hit.match.in === 'message' ? `?seq=${hit.match.seq}` : ''}`,
							)
						}
					/>
				)}
				<div
					class="rows"
					ref={scroller}
					role="listbox"
					aria-label={t('inbox.list')}
					tabIndex={-1}
					hidden={Boolean(searched)}
				>
					{list.isSuccess && rows.length === 0 && (
						<p class="muted" style="padding: 12px">
							{t('inbox.empty')}
						</p>
					)}
					<div style={{ height: `${virtual.getTotalSize()}px`, position: 'relative' }}>
						{items.map((item) => {
							const row = rows[item.index] as Row;
							return (
								<InboxRow
									key={row.id}
									row={row}
									selected={row.id === openId}
									assignee={row.assigneeId ? operatorName(directory.data, row.assigneeId) : null}
									directory={directory.data}
									top={item.start}
									sortedByWait={filters.sort === 'waiting'}
									onOpen={() => open(item.index)}
								/>
							);
						})}
					</div>
				</div>
			</section>
			{openId ? (
				<ConversationView key={openId} id={openId} session={session} focusSeq={focusSeq} />
			) : (
				<p class="centered muted">{t('inbox.pick')}</p>
			)}
		</div>
	);
}

function InboxRow(props: {
	row: Row;
	selected: boolean;
	assignee: string | null;
	directory: Directory | undefined;
	top: number;
	sortedByWait: boolean;
	onOpen(): void;
}) {
	const { row } = props;
	const last = row.lastMessage;
	// Named as the thread names them; the customer's own messages need no name, the row's title is theirs.
	const who = !last ? null : last.private ? t('composer.note') : consoleAuthor(last, props.directory, null);
	const preview = last ? `${who ? `${who}: ` : ''}${previewText(last.text)}` : '';
	return (
		<button
			type="button"
			role="option"
			class={`row${row.unreadByOperators > 0 ? ' unread' : ''}`}
			aria-selected={props.selected}
			style={{ position: 'absolute', top: 0, transform: `translateY(${props.top}px)` }}
			onClick={props.onOpen}
		>
			<div class="top">
				<strong class="name">{row.contact ? contactLabel(row.contact) : row.id.slice(-8)}</strong>
				<span class="muted time">{when(row.lastActivityAt)}</span>
				{row.unreadByOperators > 0 && (
					<span class="badge">
						{row.unreadByOperators}
						<span class="visually-hidden"> {t('inbox.unread', { n: row.unreadByOperators })}</span>
					</span>
				)}
			</div>
			<div class="preview" dir="auto">
				{row.subject && <span class="subject">{row.subject} · </span>}
				{preview || <span class="muted">{t('inbox.noMessages')}</span>}
			</div>
			<div class="muted meta">
				{row.channel === 'email' ? (
					<span class="channel email" data-testid="channel-email">
						{t('mail.channel')}
					</span>
				) : row.channel === 'whatsapp' ? (
					<span class="channel whatsapp" data-testid="channel-whatsapp">
						{t('whatsapp.channel')}
					</span>
				) : (
					row.channel
				)}
				{row.status !== 'open' && ` · ${t(`inbox.status.${row.status}`)}`}
				{row.snoozedUntil && ` · ${t('inbox.snoozedUntil', { when: when(row.snoozedUntil) })}`}
				{props.sortedByWait && row.waitingSince && ` · ${t('inbox.waiting', { when: when(row.waitingSince) })}`}
				{props.assignee && ` · ${props.assignee}`}
				{row.tags.map((tag) => (
					<span class="chip" key={tag}>
						{tag}
					</span>
				))}
			</div>
		</button>
	);
}

/** `value` once it has stayed the same for `ms`: a search is asked for when the typing pauses. */
function useDebounced(value: string, ms: number): string {
	const [settled, setSettled] = useState(value);
	useEffect(() => {
		const timer = setTimeout(() => setSettled(value), value ? ms : 0);
		return () => clearTimeout(timer);
	}, [value, ms]);
	return settled;
}
