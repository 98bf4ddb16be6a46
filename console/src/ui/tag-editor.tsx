import { useId, useState } from 'preact/hooks';
import { type TagTarget, useTagChange, useTags } from '../data/workspace';
import { t } from '../i18n';
import { Problem } from './problem';

/** A record's tags as chips: × removes one; typing a name (the workspace's tags suggested) and Enter adds it. */
export function TagEditor(props: {
	label: string;
	tags: readonly string[];
	path(name: string): TagTarget;
	onChanged(): void;
}) {
	const known = useTags();
	const [draft, setDraft] = useState('');
	const inputId = useId();
	const change = useTagChange(props.path, (method) => {
		if (method === 'PUT') setDraft('');
		props.onChanged();
	});
	return (
		<div class="tag-editor">
			<label for={inputId} class="inline-label">
				{props.label}
			</label>
			<ul class="chips">
				{props.tags.map((name) => (
					<li key={name} class="chip">
						{name}
						<button
							type="button"
							class="chip-remove"
							aria-label={t('tags.remove', { name })}
							disabled={change.isPending}
							onClick={() => change.mutate({ method: 'DELETE', name })}
						>
							×
						</button>
					</li>
				))}
			</ul>
			<input
				id={inputId}
				list={`${inputId}-known`}
				value={draft}
				placeholder={t('tags.add')}
				onInput={(e) => setDraft(e.currentTarget.value)}
				onKeyDown={(e) => {
					if (e.key !== 'Enter') return;
					e.preventDefault();
					const name = draft.trim();
					if (name) change.mutate({ method: 'PUT', name });
				}}
			/>
			<datalist id={`${inputId}-known`}>
				{known.data?.map((tag) => (
					<option key={tag.id} value={tag.name} />
				))}
			</datalist>
			{change.error && <Problem error={change.error} />}
		</div>
	);
}
