import { useMutation } from '@tanstack/react-query';
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { Schemas } from '../../api/client';
import { loadDeal, useAddDealNote, useDeal, useDealNotes, useSaveDeal, useShowDeal } from '../../data/crm';
import { operatorName, useBoardFunnels, useDirectory } from '../../data/workspace';
import { t, when } from '../../i18n';
import { useShownVersion } from '../../ui/changed-elsewhere';
import { Editable } from '../../ui/editable';
import { Problem } from '../../ui/problem';
import { customInputType, customValue } from './custom-value';
import { money } from './money';

/**
 * One deal beside the board: its fields edited in place, won or lost, its owner, its contact and notes. Each
 * edit applies to the version shown; one made over someone else's change since shows the changed-elsewhere
 * notice instead of undoing it.
 */
export function DealDetail({ id, onClose }: { id: string; onClose(): void }) {
	const directory = useDirectory();
	const funnels = useBoardFunnels();
	const deal = useDeal(id);
	const version = useShownVersion(deal.data, () => loadDeal(id), useShowDeal(id));
	const notes = useDealNotes(id);
	const saveDeal = useSaveDeal(id);
	const save = async (body: Schemas['DealChanges']) => {
		await saveDeal.mutateAsync({ body, etag: version.etag });
	};
	const status = useMutation({ mutationFn: (next: 'open' | 'won' | 'lost') => save({ status: next }) });
	const [note, setNote] = useState('');
	const addNote = useAddDealNote(id);
	const data = deal.data;
	const stages = funnels.data?.find((f) => f.id === data?.funnelId)?.stages ?? [];
	const fields = directory.data?.customFields.filter((f) => f.entity === 'deal') ?? [];
	return (
		<aside class="records-detail deal-detail" aria-label={t('deals.detail')}>
			<button type="button" class="close" onClick={onClose} aria-label={t('common.close')}>
				×
			</button>
			{deal.error && <Problem error={deal.error} retry={() => deal.refetch()} />}
			{data && (
				<Fragment key={version.generation}>
					<h3>{data.name}</h3>
					<p class="muted">
						{data.stage.name} · {t(`deal.status.${data.status}`)} {money(data)}
					</p>
					<div class="action-row">
						{(['won', 'lost', 'open'] as const)
							.filter((s) => s !== data.status)
							.map((s) => (
								<button type="button" key={s} disabled={status.isPending} onClick={() => status.mutate(s)}>
									{t(`deals.mark.${s}`)}
								</button>
							))}
					</div>
					{status.error && version.problem(status.error)}
					<Editable
						label={t('deals.name')}
						value={data.name}
						onSave={(v) => save({ name: v })}
						problem={version.problem}
					/>
					<Editable
						label={t('deals.value')}
						type="number"
						value={data.value === null ? null : String(data.value / 100)}
						onSave={(v) => save({ value: v === '' ? null : Math.round(Number(v) * 100) })}
						problem={version.problem}
					/>
					<Editable
						label={t('deals.stage')}
						value={data.stage.id}
						display={data.stage.name}
						options={stages.map((s) => ({ value: s.id, label: s.name }))}
						onSave={(v) => save({ stage: v })}
						problem={version.problem}
					/>
					<Editable
						label={t('deals.currency')}
						value={data.currency}
						onSave={(v) => save({ currency: v === '' ? null : v.toUpperCase() })}
						problem={version.problem}
					/>
					<Editable
						label={t('deals.owner')}
						value={data.ownerId ?? ''}
						display={data.ownerId ? operatorName(directory.data, data.ownerId) : null}
						options={
							directory.data?.operators.filter((o) => !o.disabled).map((o) => ({ value: o.id, label: o.name })) ?? []
						}
						onSave={(v) => save({ ownerId: v || null })}
						problem={version.problem}
					/>
					{fields.length > 0 && <h4>{t('deals.customFields')}</h4>}
					{fields.map((field) => (
						<Editable
							key={field.key}
							label={field.label}
							value={data.customFields[field.key] == null ? null : String(data.customFields[field.key])}
							type={customInputType(field.type)}
							options={field.type === 'boolean' ? ['true', 'false'] : field.options}
							problem={version.problem}
							onSave={(v) => save({ customFields: { [field.key]: customValue(field.type, v) } })}
						/>
					))}
					{data.contactId && (
						<p>
							<Link href={`/contacts/${data.contactId}`}>{t('deals.contact')}</Link>
						</p>
					)}
					<h4>{t('deals.notes')}</h4>
					<form
						onSubmit={(e) => {
							e.preventDefault();
							if (note.trim()) addNote.mutate(note.trim(), { onSuccess: () => setNote('') });
						}}
					>
						<label for="deal-note" class="visually-hidden">
							{t('deals.addNote')}
						</label>
						<textarea id="deal-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
						<button type="submit" disabled={!note.trim() || addNote.isPending}>
							{t('deals.addNote')}
						</button>
					</form>
					{addNote.error && <Problem error={addNote.error} />}
					<ul class="plain notes">
						{notes.data?.data.map((n) => (
							<li key={n.id}>
								<div class="muted small">{when(n.createdAt)}</div>
								{n.text}
							</li>
						))}
					</ul>
				</Fragment>
			)}
		</aside>
	);
}
