import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { useTags } from '../api/queries';
import { t } from '../i18n';
import { Problem } from './problem';

type Target = { kind: 'conversation' | 'contact'; id: string; name: string };

function tagRequest(method: 'PUT' | 'DELETE', target: Target) {
	const params = { params: { path: { id: target.id, name: target.name } } };
	if (target.kind === 'conversation')
		return method === 'PUT'
			? api.PUT('/v3/conversations/{id}/tags/{name}', params)
			: api.DELETE('/v3/conversations/{id}/tags/{name}', params);
	return method === 'PUT'
		? api.PUT('/v3/contacts/{id}/tags/{name}', params)
		: api.DELETE('/v3/contacts/{id}/tags/{name}', params);
}

/** A record's tags as chips: × removes one; typing a name (the workspace's tags suggested) and Enter adds it. */
export function TagEditor(props: {
	label: string;
	tags: readonly string[];
	path(name: string): Target;
	onChanged(): void;
}) {
	const client = useQueryClient();
	const known = useTags();
	const [draft, setDraft] = useState('');
	const inputId = useId();
	const change = useMutation({
		mutationFn: ({ method, name }: { method: 'PUT' | 'DELETE'; name: string }) =>
			ok(tagRequest(method, props.path(name))),
		onSuccess: (_, { method }) => {
			if (method === 'PUT') {
				setDraft('');
				void client.invalidateQueries({ queryKey: ['tags'] });
			}
			props.onChanged();
		},
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
