import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import type { Schemas } from '../../api/client';
import { useTemplatePreview } from '../../data/builder';
import { type Campaign, useCampaignChanges, useCreateCampaign } from '../../data/campaigns';
import { useNumberTemplates, useWhatsappNumbers } from '../../data/whatsapp';
import { t } from '../../i18n';
import { enterSendsNothing, useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, problemUnder } from '../settings/form';
import { AudienceFields, audienceDraft, audienceOf } from './campaign-audience';

type Channel = Campaign['channel'];
type TemplateSend = Schemas['WhatsappTemplateSend'];
const CHANNELS: readonly Channel[] = ['widget', 'email', 'whatsapp'];

/**
 * A campaign's message and audience: a new one (created as a draft, then opened) or a draft or scheduled one
 * (saved with one PATCH). Each channel offers what the API takes for it: the widget a message, e-mail a subject
 * and a message, WhatsApp a connected number and one of its approved templates with its variables. The API's
 * 422 shows under the field it names.
 */
export function CampaignComposer({ campaign, admin }: { campaign?: Campaign; admin: boolean }) {
	const [, navigate] = useLocation();
	const create = useCreateCampaign();
	const changes = useCampaignChanges(campaign?.id ?? '');
	const [name, setName] = useState(campaign?.name ?? '');
	const [channel, setChannel] = useState<Channel>(campaign?.channel ?? 'widget');
	const [subject, setSubject] = useState(campaign?.subject ?? '');
	const [template, setTemplate] = useState(campaign?.channel === 'whatsapp' ? '' : (campaign?.template ?? ''));
	const [numberId, setNumberId] = useState(campaign?.whatsappNumberId ?? '');
	const [waTemplate, setWaTemplate] = useState<TemplateSend | null>(campaign?.whatsappTemplate ?? null);
	const [audience, setAudience] = useState(audienceDraft(campaign?.audience));
	const [saved, setSaved] = useState(false);
	const submit = useSubmit(async () => {
		setSaved(false);
		const body = {
			name,
			audience: audienceOf(audience),
			...(channel === 'whatsapp'
				? {
						...(numberId ? { whatsappNumberId: numberId } : {}),
						...(waTemplate ? { whatsappTemplate: waTemplate } : {}),
					}
				: {
						// Left out when empty, so the API says what the channel needs rather than that a text is short.
						...(template ? { template } : {}),
						...(channel === 'email' && subject ? { subject } : {}),
					}),
		};
		if (campaign) {
			await changes.update.mutateAsync(body);
			setSaved(true);
		} else {
			const created = await create.mutateAsync({ ...body, channel });
			navigate(`/campaigns/${created.id}`);
		}
	});
	const problems = fieldProblems(submit.error);
	const field = (id: string, path: string, label: string, input: preact.JSX.Element, hint?: string) => (
		<div class="field">
			<label for={id}>{label}</label>
			{input}
			{hint && <p class="hint muted">{hint}</p>}
			<FieldProblem id={id} message={problemUnder(problems, path)} />
		</div>
	);
	const bind = (id: string, path: string) => ({ id, ...invalid(id, problemUnder(problems, path)) });
	return (
		<form
			class="campaign-composer"
			aria-label={campaign ? campaign.name : t('campaigns.new')}
			noValidate
			onKeyDown={enterSendsNothing}
			onSubmit={(e) => {
				e.preventDefault();
				void submit.submit();
			}}
		>
			<div class="grid-2">
				{field(
					'campaign-name',
					'name',
					t('campaigns.name'),
					<input {...bind('campaign-name', 'name')} value={name} onInput={(e) => setName(e.currentTarget.value)} />,
				)}
				{field(
					'campaign-channel',
					'channel',
					t('campaigns.channel'),
					<select
						{...bind('campaign-channel', 'channel')}
						value={channel}
						disabled={Boolean(campaign)}
						onChange={(e) => setChannel(e.currentTarget.value as Channel)}
					>
						{CHANNELS.map((c) => (
							<option key={c} value={c}>
								{t(`campaigns.channel.${c}`)}
							</option>
						))}
					</select>,
				)}
			</div>
			{channel === 'email' &&
				field(
					'campaign-subject',
					'subject',
					t('campaigns.subject'),
					<input
						{...bind('campaign-subject', 'subject')}
						value={subject}
						onInput={(e) => setSubject(e.currentTarget.value)}
					/>,
				)}
			{channel === 'whatsapp' ? (
				<WhatsappFields
					admin={admin}
					numberId={numberId}
					onNumber={(id) => {
						setNumberId(id);
						setWaTemplate(null);
					}}
					value={waTemplate}
					onChange={setWaTemplate}
					problems={problems}
				/>
			) : (
				field(
					'campaign-template',
					'template',
					t('campaigns.template'),
					<textarea
						{...bind('campaign-template', 'template')}
						rows={6}
						value={template}
						onInput={(e) => setTemplate(e.currentTarget.value)}
					/>,
					t('campaigns.template.hint'),
				)
			)}
			{channel === 'email' && subject && <LivePreview id="campaign-subject-preview" template={subject} />}
			{channel !== 'whatsapp' && template && <LivePreview id="campaign-template-preview" template={template} />}
			<AudienceFields draft={audience} onChange={setAudience} problems={problems} disabled={false} />
			{submit.error !== null && problems.size === 0 && <Problem error={submit.error} />}
			<div class="actions">
				<span class="muted" role="status">
					{saved && !submit.busy ? t('campaigns.saved') : ''}
				</span>
				<button type="submit" class="primary" disabled={submit.busy}>
					{campaign ? t('campaigns.save') : t('campaigns.create')}
				</button>
			</div>
		</form>
	);
}

/** A connected number, one of its approved templates, and a Liquid source for each of its variables. */
function WhatsappFields(props: {
	admin: boolean;
	numberId: string;
	onNumber: (id: string) => void;
	value: TemplateSend | null;
	onChange: (value: TemplateSend | null) => void;
	problems: Map<string, string>;
}) {
	const numbers = useWhatsappNumbers(props.admin);
	const templates = useNumberTemplates(props.numberId);
	const chosen = templates.data?.data.find(
		(tpl) => tpl.name === props.value?.name && tpl.language === props.value?.language,
	);
	const variable = (index: number, placeholder: string) => {
		const given = props.value?.variables;
		if (Array.isArray(given)) return given[index] ?? '';
		return given?.[placeholder] ?? '';
	};
	const setVariable = (index: number, source: string) => {
		if (!props.value || !chosen) return;
		const names = chosen.variables;
		const variables =
			chosen.parameterFormat === 'POSITIONAL'
				? names.map((n, i) => (i === index ? source : variable(i, n)))
				: Object.fromEntries(names.map((n, i) => [n, i === index ? source : variable(i, n)]));
		props.onChange({ ...props.value, variables });
	};
	const numberProblem = problemUnder(props.problems, 'whatsappNumberId');
	const templateProblem = problemUnder(props.problems, 'whatsappTemplate');
	return (
		<div class="whatsapp-fields">
			<div class="grid-2">
				<div class="field">
					<label for="campaign-number">{t('campaigns.number')}</label>
					<select
						id="campaign-number"
						value={props.numberId}
						onChange={(e) => props.onNumber(e.currentTarget.value)}
						{...invalid('campaign-number', numberProblem)}
					>
						<option value="">—</option>
						{numbers.data?.data.map((n) => (
							<option key={n.id} value={n.id}>
								{n.displayPhoneNumber ?? n.phoneNumberId}
							</option>
						))}
					</select>
					<FieldProblem id="campaign-number" message={numberProblem} />
				</div>
				<div class="field">
					<label for="campaign-wa-template">{t('campaigns.waTemplate')}</label>
					<select
						id="campaign-wa-template"
						value={props.value ? `${props.value.name}|${props.value.language}` : ''}
						onChange={(e) => {
							const found = templates.data?.data.find((tpl) => `${tpl.name}|${tpl.language}` === e.currentTarget.value);
							props.onChange(
								found
									? {
											name: found.name,
											language: found.language,
											variables:
												found.parameterFormat === 'POSITIONAL'
													? found.variables.map(() => '')
													: Object.fromEntries(found.variables.map((n) => [n, ''])),
										}
									: null,
							);
						}}
						{...invalid('campaign-wa-template', templateProblem)}
					>
						<option value="">—</option>
						{templates.data?.data.map((tpl) => (
							<option key={`${tpl.name}|${tpl.language}`} value={`${tpl.name}|${tpl.language}`}>
								{tpl.name} ({tpl.language})
							</option>
						))}
					</select>
					<FieldProblem id="campaign-wa-template" message={templateProblem} />
					{templates.data?.data.length === 0 && <p class="muted">{t('campaigns.waTemplate.none')}</p>}
				</div>
			</div>
			{templates.error && <Problem error={templates.error} />}
			{chosen && <p class="muted template-body">{chosen.body}</p>}
			{chosen?.variables.map((placeholder, index) => (
				<div class="field" key={placeholder}>
					<label for={`campaign-variable-${index}`}>{t('campaigns.variable', { name: placeholder })}</label>
					<input
						id={`campaign-variable-${index}`}
						value={variable(index, placeholder)}
						onInput={(e) => setVariable(index, e.currentTarget.value)}
					/>
				</div>
			))}
		</div>
	);
}

/** A sample contact, as the builders' previews use one. */
const SAMPLE = { contact: { name: 'Ana Souza', email: 'ana@example.com', phone: '+5511999990000', customFields: {} } };

/** `text` once it has stayed the same for a moment: the preview asks the API at a pause, not at each key. */
function useSettled(text: string): string {
	const [settled, setSettled] = useState(text);
	useEffect(() => {
		const timer = setTimeout(() => setSettled(text), 300);
		return () => clearTimeout(timer);
	}, [text]);
	return settled;
}

/**
 * The text being written, rendered by the API's own Liquid (POST /v3/templates/preview) for a sample contact,
 * or the API's reason it cannot be: filters and dates are the real ones, before anything is saved.
 */
function LivePreview({ id, template }: { id: string; template: string }) {
	const preview = useTemplatePreview(useSettled(template), SAMPLE);
	const problem = preview.error?.message.replace(/^json\.template: /, '');
	return (
		<div class="live-preview">
			<label for={id}>{t('campaigns.livePreview')}</label>
			<output id={id} aria-live="polite" class={problem ? 'field-problem' : undefined}>
				{problem ?? preview.data ?? '…'}
			</output>
		</div>
	);
}
