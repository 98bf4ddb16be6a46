import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { useCreateDeal } from '../../data/crm';
import { useDirectory } from '../../data/workspace';
import { t } from '../../i18n';
import { enterSendsNothing, useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, problemUnder } from '../settings/form';
import { customInputType, customValue } from './custom-value';

type Funnel = Schemas['Funnel'];

/**
 * A new deal, beside the board (from the deals page, or from a contact, whose id it starts with): its funnel
 * and stage, name, value and currency, owner, contact and the deal custom fields. The API judges it; its
 * 422 shows under the field it names.
 */
export function NewDeal(props: {
	funnels: Funnel[];
	funnelId: string | undefined;
	contactId: string | null;
	onCreated(id: string): void;
	onClose(): void;
}) {
	const directory = useDirectory();
	const create = useCreateDeal();
	const [funnelId, setFunnelId] = useState(props.funnelId ?? props.funnels[0]?.id ?? '');
	const funnel = props.funnels.find((f) => f.id === funnelId);
	const [stageId, setStageId] = useState('');
	const [name, setName] = useState('');
	const [value, setValue] = useState('');
	const [currency, setCurrency] = useState('');
	const [ownerId, setOwnerId] = useState('');
	const [contactId, setContactId] = useState(props.contactId ?? '');
	const [custom, setCustom] = useState<Record<string, string>>({});
	const fields = directory.data?.customFields.filter((f) => f.entity === 'deal') ?? [];
	const submit = useSubmit(async () => {
		const values = Object.entries(custom)
			.filter(([, v]) => v.trim() !== '')
			.map(([key, v]) => [key, customValue(fields.find((f) => f.key === key)?.type ?? 'text', v.trim())]);
		const deal = await create.mutateAsync({
			funnel: funnelId,
			name,
			...(stageId ? { stage: stageId } : {}),
			...(value.trim() ? { value: Math.round(Number(value) * 100) } : {}),
			...(currency.trim() ? { currency: currency.trim() } : {}),
			...(ownerId ? { ownerId } : {}),
			...(contactId.trim() ? { contactId: contactId.trim() } : {}),
			...(values.length ? { customFields: Object.fromEntries(values) } : {}),
		});
		props.onCreated(deal.id);
	});
	const problems = fieldProblems(submit.error);
	const field = (id: string, path: string, label: string, input: preact.JSX.Element) => (
		<div class="field">
			<label for={id}>{label}</label>
			{input}
			<FieldProblem id={id} message={problemUnder(problems, path)} />
		</div>
	);
	const bind = (id: string, path: string) => ({ id, ...invalid(id, problemUnder(problems, path)) });
	return (
		<aside class="records-detail new-deal" aria-label={t('deals.new')}>
			<button type="button" class="close" onClick={props.onClose} aria-label={t('common.close')}>
				×
			</button>
			<h3>{t('deals.new')}</h3>
			<form
				noValidate
				onKeyDown={enterSendsNothing}
				onSubmit={(e) => {
					e.preventDefault();
					void submit.submit();
				}}
			>
				{field(
					'new-deal-name',
					'name',
					t('deals.name'),
					<input {...bind('new-deal-name', 'name')} value={name} onInput={(e) => setName(e.currentTarget.value)} />,
				)}
				{field(
					'new-deal-funnel',
					'funnel',
					t('deals.funnel'),
					<select
						{...bind('new-deal-funnel', 'funnel')}
						value={funnelId}
						onChange={(e) => {
							setFunnelId(e.currentTarget.value);
							setStageId('');
						}}
					>
						{props.funnels.map((f) => (
							<option key={f.id} value={f.id}>
								{f.name}
							</option>
						))}
					</select>,
				)}
				{field(
					'new-deal-stage',
					'stage',
					t('deals.stage'),
					<select
						{...bind('new-deal-stage', 'stage')}
						value={stageId}
						onChange={(e) => setStageId(e.currentTarget.value)}
					>
						{funnel?.stages.map((s, i) => (
							<option key={s.id} value={i === 0 ? '' : s.id}>
								{s.name}
							</option>
						))}
					</select>,
				)}
				{field(
					'new-deal-value',
					'value',
					t('deals.value'),
					<input
						{...bind('new-deal-value', 'value')}
						type="number"
						step="0.01"
						value={value}
						onInput={(e) => setValue(e.currentTarget.value)}
					/>,
				)}
				{field(
					'new-deal-currency',
					'currency',
					t('deals.currency'),
					<input
						{...bind('new-deal-currency', 'currency')}
						placeholder="BRL"
						maxLength={3}
						value={currency}
						onInput={(e) => setCurrency(e.currentTarget.value.toUpperCase())}
					/>,
				)}
				{field(
					'new-deal-owner',
					'ownerId',
					t('deals.owner'),
					<select
						{...bind('new-deal-owner', 'ownerId')}
						value={ownerId}
						onChange={(e) => setOwnerId(e.currentTarget.value)}
					>
						<option value="">—</option>
						{directory.data?.operators
							.filter((o) => !o.disabled)
							.map((o) => (
								<option key={o.id} value={o.id}>
									{o.name}
								</option>
							))}
					</select>,
				)}
				{field(
					'new-deal-contact',
					'contactId',
					t('deals.contactId'),
					<input
						{...bind('new-deal-contact', 'contactId')}
						value={contactId}
						onInput={(e) => setContactId(e.currentTarget.value)}
					/>,
				)}
				{fields.length > 0 && <h4>{t('deals.customFields')}</h4>}
				{fields.map((f) => {
					const id = `new-deal-cf-${f.key}`;
					const options = f.type === 'boolean' ? ['true', 'false'] : f.type === 'select' ? (f.options ?? []) : null;
					const set = (v: string) => setCustom({ ...custom, [f.key]: v });
					return field(
						id,
						`customFields.${f.key}`,
						f.label,
						options ? (
							<select
								{...bind(id, `customFields.${f.key}`)}
								value={custom[f.key] ?? ''}
								onChange={(e) => set(e.currentTarget.value)}
							>
								<option value="">—</option>
								{options.map((o) => (
									<option key={o} value={o}>
										{o}
									</option>
								))}
							</select>
						) : (
							<input
								{...bind(id, `customFields.${f.key}`)}
								type={customInputType(f.type)}
								value={custom[f.key] ?? ''}
								onInput={(e) => set(e.currentTarget.value)}
							/>
						),
					);
				})}
				{submit.error !== null && problems.size === 0 && <Problem error={submit.error} />}
				<button type="submit" class="primary" disabled={submit.busy || !funnelId}>
					{t('deals.new.submit')}
				</button>
			</form>
		</aside>
	);
}
