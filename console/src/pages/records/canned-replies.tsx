import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../../api/client';
import { operatorName, useDirectory } from '../../api/queries';
import { t } from '../../i18n';
import type { ConsoleSession } from '../../session';
import { Editable } from '../../ui/editable';
import { Problem } from '../../ui/problem';

type CannedReply = Schemas['CannedReply'];

/**
 * The team's saved replies: everyone reads and uses them (`/shortcut` in the composer); their author and
 * admins change or delete them. Texts are Liquid templates (`{{ contact.name }}`), checked when saved.
 */
export function CannedReplies({ session }: { session: ConsoleSession }) {
	const client = useQueryClient();
	const directory = useDirectory();
	const list = useInfiniteQuery({
		queryKey: ['canned-replies', 'all'],
		queryFn: ({ pageParam }) =>
			ok(
				api.GET('/v3/canned-replies', {
					params: { query: { limit: 100, ...(pageParam ? { cursor: pageParam } : {}) } },
				}),
			),
		initialPageParam: '',
		getNextPageParam: (last) => last.nextCursor ?? undefined,
	});
	const replies = list.data?.pages.flatMap((page) => page.data);
	const refresh = () => client.invalidateQueries({ queryKey: ['canned-replies'] });
	const isAdmin = session.permissions.includes('admin');
	return (
		<section class="records-list narrow" aria-label={t('canned.title')}>
			<h1>{t('canned.title')}</h1>
			<p class="muted">{t('canned.intro')}</p>
			<NewReply onCreated={refresh} />
			{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
			<ul class="plain canned-list">
				{replies?.map((reply) => (
					<ReplyRow
						key={reply.id}
						reply={reply}
						author={operatorName(directory.data, reply.authorId)}
						canChange={isAdmin || reply.authorId === session.operator.id}
						onChanged={refresh}
					/>
				))}
			</ul>
			{replies?.length === 0 && <p class="muted">{t('canned.empty')}</p>}
			{list.hasNextPage && (
				<button type="button" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
					{t('common.more')}
				</button>
			)}
		</section>
	);
}

function NewReply({ onCreated }: { onCreated(): void }) {
	const [shortcut, setShortcut] = useState('');
	const [title, setTitle] = useState('');
	const [text, setText] = useState('');
	const create = useMutation({
		mutationFn: () =>
			ok(
				api.POST('/v3/canned-replies', {
					body: { shortcut: shortcut.trim(), text, ...(title.trim() ? { title: title.trim() } : {}) },
				}),
			),
		onSuccess: () => {
			setShortcut('');
			setTitle('');
			setText('');
			onCreated();
		},
	});
	return (
		<form
			class="canned-new"
			noValidate
			onSubmit={(e) => {
				e.preventDefault();
				create.mutate();
			}}
		>
			<div class="filter-grid">
				<label>
					{t('canned.shortcut')}
					<input value={shortcut} placeholder="shipping" onInput={(e) => setShortcut(e.currentTarget.value)} />
				</label>
				<label>
					{t('canned.titleField')}
					<input value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
				</label>
			</div>
			<label for="canned-text">{t('canned.text')}</label>
			<textarea
				id="canned-text"
				value={text}
				placeholder={t('canned.textPlaceholder')}
				onInput={(e) => setText(e.currentTarget.value)}
			/>
			<button type="submit" class="primary" disabled={create.isPending}>
				{t('canned.save')}
			</button>
			{create.error && <Problem error={create.error} />}
		</form>
	);
}

function ReplyRow(props: { reply: CannedReply; author: string; canChange: boolean; onChanged(): void }) {
	const { reply } = props;
	const save = async (body: Schemas['CannedReplyChanges']) => {
		await ok(api.PATCH('/v3/canned-replies/{id}', { params: { path: { id: reply.id } }, body }));
		props.onChanged();
	};
	const remove = useMutation({
		mutationFn: () => ok(api.DELETE('/v3/canned-replies/{id}', { params: { path: { id: reply.id } } })),
		onSuccess: props.onChanged,
	});
	return (
		<li class="canned-row">
			<div class="muted small">
				/{reply.shortcut} · {props.author}
			</div>
			<Editable
				label={t('canned.shortcut')}
				value={reply.shortcut}
				disabled={!props.canChange}
				onSave={(v) => save({ shortcut: v })}
			/>
			<Editable
				label={t('canned.titleField')}
				value={reply.title}
				disabled={!props.canChange}
				onSave={(v) => save({ title: v || null })}
			/>
			<Editable
				label={t('canned.text')}
				multiline
				value={reply.text}
				disabled={!props.canChange}
				onSave={(v) => save({ text: v })}
			/>
			{props.canChange && (
				<button type="button" disabled={remove.isPending} onClick={() => remove.mutate()}>
					{t('canned.delete', { shortcut: reply.shortcut })}
				</button>
			)}
			{remove.error && <Problem error={remove.error} />}
		</li>
	);
}
