import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { t, when } from '../i18n';
import { openLive } from '../live';
import type { ConsoleSession } from '../session';
import { useShortcuts } from '../ui/hooks';
import { Problem } from '../ui/problem';
import { ConversationView } from './conversation';

type View = 'mine' | 'unassigned' | 'all';
type Status = 'open' | 'pending' | 'closed' | '';
type Conversation = Schemas['Conversation'];

const ROW_HEIGHT = 64;

/** Events of the inbox feed that change what a list shows. */
const LIST_EVENTS = new Set(['conversation.created', 'conversation.updated', 'conversation.read', 'message.created']);

/**
 * The inbox: the views operators expect (mine, unassigned, all) by status, a virtualised list (only the rows on
 * screen exist, so ten thousand scroll like ten), kept live by the workspace's feed, and the open conversation.
 * Keys (outside a text field): j / k next and previous, a assign to me, x close or reopen, r reply (Escape leaves it).
 */
export function Inbox({ session, openId }: { session: ConsoleSession; openId?: string }) {
	const [view, setView] = useState<View>('all');
	const [status, setStatus] = useState<Status>('open');
	const [, navigate] = useLocation();
	const client = useQueryClient();
	const filters = {
		...(status ? { status } : {}),
		...(view === 'mine' ? { assigneeId: session.operator.id } : view === 'unassigned' ? { assigneeId: 'none' } : {}),
	};
	const list = useInfiniteQuery({
		queryKey: ['conversations', filters],
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/conversations', {
					params: { query: { ...filters, limit: 100, ...(pageParam ? { cursor: pageParam } : {}) } },
				}),
			),
		initialPageParam: '',
		getNextPageParam: (last) => last.nextCursor ?? undefined,
	});
	const rows = useMemo(() => list.data?.pages.flatMap((page) => page.data) ?? [], [list.data]);

	// The feed: any change to a conversation refreshes the lists (at most every half second).
	useEffect(() => {
		let pending: ReturnType<typeof setTimeout> | undefined;
		const feed = openLive(() => '/v3/live', {
			onFrame(frame) {
				const event = frame.event as { type?: string } | undefined;
				if (frame.type !== 'event' || !event?.type || !LIST_EVENTS.has(event.type)) return;
				clearTimeout(pending);
				pending = setTimeout(() => client.invalidateQueries({ queryKey: ['conversations'] }), 500);
			},
			onOpen: () => client.invalidateQueries({ queryKey: ['conversations'] }),
		});
		return () => {
			clearTimeout(pending);
			feed.close();
		};
	}, [client]);

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
	useShortcuts({ j: next, ArrowDown: next, k: previous, ArrowUp: previous });

	return (
		<div class={`inbox${openId ? ' has-open' : ''}`}>
			<section class="list-pane" aria-label={t('inbox.list')}>
				<div class="views">
					{(['mine', 'unassigned', 'all'] as const).map((name) => (
						<button type="button" key={name} aria-pressed={view === name} onClick={() => setView(name)}>
							{t(`inbox.${name}`)}
						</button>
					))}
					<label class="visually-hidden" for="status">
						{t('inbox.status')}
					</label>
					<select id="status" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status)}>
						<option value="open">{t('inbox.status.open')}</option>
						<option value="pending">{t('inbox.status.pending')}</option>
						<option value="closed">{t('inbox.status.closed')}</option>
						<option value="">{t('inbox.status.any')}</option>
					</select>
				</div>
				{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
				<div class="rows" ref={scroller} role="listbox" aria-label={t('inbox.list')} tabIndex={-1}>
					{list.isSuccess && rows.length === 0 && (
						<p class="muted" style="padding: 12px">
							{t('inbox.empty')}
						</p>
					)}
					<div style={{ height: `${virtual.getTotalSize()}px`, position: 'relative' }}>
						{items.map((item) => {
							const row = rows[item.index] as Conversation;
							return (
								<button
									type="button"
									role="option"
									key={row.id}
									class="row"
									aria-selected={row.id === openId}
									style={{ position: 'absolute', top: 0, transform: `translateY(${item.start}px)` }}
									onClick={() => open(item.index)}
								>
									<div class="top">
										<strong>{row.contactId ? row.contactId.slice(-8) : row.id.slice(-8)}</strong>
										{row.unreadByOperators > 0 && (
											<span class="badge">
												{row.unreadByOperators}
												<span class="visually-hidden"> {t('inbox.unread', { n: row.unreadByOperators })}</span>
											</span>
										)}
									</div>
									<div class="muted">
										{row.channel} · {row.status} · {when(row.lastActivityAt)}
									</div>
								</button>
							);
						})}
					</div>
				</div>
			</section>
			{openId ? (
				<ConversationView key={openId} id={openId} session={session} />
			) : (
				<p class="centered muted">{t('inbox.pick')}</p>
			)}
		</div>
	);
}
