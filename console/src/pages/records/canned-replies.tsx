import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { useCannedReplies, useCreateCannedReply, useDeleteCannedReply, useSaveCannedReply } from '../../data/canned';
import type { ConsoleSession } from '../../data/session';
import { operatorName, useDirectory } from '../../data/workspace';
import { t } from '../../i18n';
import { Editable } from '../../ui/editable';
import { Problem } from '../../ui/problem';

type CannedReply = Schemas['CannedReply'];

/**
 * The team's saved replies: everyone reads and uses them (`/shortcut` in the composer); their author and
 * admins change or delete them. Texts are Liquid templates (`{{ contact.name }}`), checked when saved.
 */
export function CannedReplies({ session }: { session: ConsoleSession }) {
	const directory = useDirectory();
	const list = useCannedReplies();
	const replies = list.data?.pages.flatMap((page) => page.data);
	const isAdmin = session.permissions.includes('admin');
	return (
		<section class="records-list narrow" aria-label={t('canned.title')}>
			<h1>{t('canned.title')}</h1>
			<p class="muted">{t('canned.intro')}</p>
			<NewReply />
			{list.error && <Problem error={list.error} retry={() => list.refetch()} />}
			<ul class="plain canned-list">
				{replies?.map((reply) => (
					<ReplyRow
						key={reply.id}
						reply={reply}
						author={operatorName(directory.data, reply.authorId)}
						canChange={isAdmin || reply.authorId === session.operator.id}
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

function NewReply() {
	const [shortcut, setShortcut] = useState('');
	const [title, setTitle] = useState('');
	const [text, setText] = useState('');
	const create = useCreateCannedReply();
	const reset = () => {
		setShortcut('');
		setTitle('');
		setText('');
	};
	return (
		<form
			class="canned-new"
			noValidate
			onSubmit={(e) => {
				e.preventDefault();
				create.mutate(
					{ shortcut: shortcut.trim(), text, ...(title.trim() ? { title: title.trim() } : {}) },
					{ onSuccess: reset },
				);
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

function ReplyRow(props: { reply: CannedReply; author: string; canChange: boolean }) {
	const { reply } = props;
	const save = useSaveCannedReply(reply.id);
	const remove = useDeleteCannedReply(reply.id);
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
