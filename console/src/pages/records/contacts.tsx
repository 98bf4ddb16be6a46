import { useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { useContactList, useMergeCandidates, useMergeContact } from '../../data/contacts';
import type { ConsoleSession } from '../../data/session';
import { contactLabel, useTags } from '../../data/workspace';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';
import { ContactPanel } from '../contact-panel';

/**
 * Contacts: searched by name, e-mail or phone, filtered by tag and origin, paged as you ask; one opens
 * beside the list with its panel, where a duplicate can be merged into it.
 */
export function Contacts({ openId, session }: { openId?: string; session: ConsoleSession }) {
	const [q, setQ] = useState('');
	const [tag, setTag] = useState('');
	const [origin, setOrigin] = useState<'' | 'search' | 'social'>('');
	const tags = useTags();
	const query = {
		...(q.trim() ? { q: q.trim() } : {}),
		...(tag ? { tag } : {}),
		...(origin === 'search' ? { hasGclid: 'true' as const } : {}),
		...(origin === 'social' ? { hasFbclid: 'true' as const } : {}),
	};
	const list = useContactList(query);
	const rows = useMemo(() => list.data?.pages.flatMap((page) => page.data) ?? [], [list.data]);

	return (
		<div class={`records${openId ? ' has-open' : ''}`}>
			<section class="records-list" aria-label={t('contacts.title')}>
				<h1>{t('contacts.title')}</h1>
				<div class="filter-grid">
					<label>
						{t('contacts.search')}
						<input type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
					</label>
					<label>
						{t('inbox.tag')}
						<select value={tag} onChange={(e) => setTag(e.currentTarget.value)}>
							<option value="">{t('inbox.any')}</option>
							{tags.data?.map((item) => (
								<option key={item.id} value={item.name}>
									{item.name}
								</option>
							))}
						</select>
					</label>
					<label>
						{t('inbox.origin')}
						<select value={origin} onChange={(e) => setOrigin(e.currentTarget.value as typeof origin)}>
							<option value="">{t('inbox.any')}</option>
							<option value="search">{t('inbox.origin.search')}</option>
							<option value="social">{t('inbox.origin.social')}</option>
						</select>
					</label>
				</div>
				{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
				<table>
					<thead>
						<tr>
							<th>{t('contact.name')}</th>
							<th>{t('contact.email')}</th>
							<th>{t('contact.phone')}</th>
							<th>{t('contact.tags')}</th>
							<th>{t('contacts.created')}</th>
						</tr>
					</thead>
					<tbody>
						{rows.map((contact) => (
							<tr key={contact.id} aria-current={contact.id === openId ? 'true' : undefined}>
								<td>
									<Link href={`/contacts/${contact.id}`}>{contactLabel(contact)}</Link>
								</td>
								<td>{contact.email}</td>
								<td>{contact.phone}</td>
								<td>{contact.tags.join(', ')}</td>
								<td class="muted">{when(contact.createdAt)}</td>
							</tr>
						))}
					</tbody>
				</table>
				{list.isSuccess && rows.length === 0 && <p class="muted">{t('contacts.empty')}</p>}
				{list.hasNextPage && (
					<button type="button" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
						{t('common.more')}
					</button>
				)}
			</section>
			{openId && (
				<div class="records-detail">
					<ContactPanel key={openId} contactId={openId} session={session} />
					<MergeContact into={openId} />
				</div>
			)}
		</div>
	);
}

/**
 * Merge a duplicate into this contact: find it by name, e-mail or phone; its conversations, deals, tags and
 * fields move here, then it is gone.
 */
function MergeContact({ into }: { into: string }) {
	const [search, setSearch] = useState('');
	const candidates = useMergeCandidates(search.trim(), into);
	const merge = useMergeContact(into);
	return (
		<div class="merge">
			<label for="merge-search">{t('contacts.mergeLabel')}</label>
			<input id="merge-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
			<ul class="plain">
				{candidates.data?.data
					.filter((c) => c.id !== into)
					.map((c) => (
						<li key={c.id}>
							{contactLabel(c)} <span class="muted small">{c.email ?? c.phone ?? ''}</span>{' '}
							<button
								type="button"
								disabled={merge.isPending}
								onClick={() => {
									if (confirm(t('contacts.mergeConfirm', { name: contactLabel(c) })))
										merge.mutate(c.id, { onSuccess: () => setSearch('') });
								}}
							>
								{t('contacts.merge')}
							</button>
						</li>
					))}
			</ul>
			{merge.error && <Problem error={merge.error} />}
		</div>
	);
}
