import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { t } from '../../i18n';
import { ContactIdInput } from '../records/contact-options';
import { FieldProblem, invalid, problemUnder } from '../settings/form';

type Audience = Schemas['CampaignAudience'];

/** What the audience form edits: both kinds' fields, kept while switching between them. */
export type AudienceDraft = {
	kind: Audience['kind'];
	tags: string;
	utmSource: string;
	utmCampaign: string;
	contactIds: string;
};

export function audienceDraft(audience: Audience | undefined): AudienceDraft {
	const draft: AudienceDraft = { kind: 'filter', tags: '', utmSource: '', utmCampaign: '', contactIds: '' };
	if (!audience) return draft;
	if (audience.kind === 'contacts') return { ...draft, kind: 'contacts', contactIds: audience.contactIds.join('\n') };
	return {
		...draft,
		tags: (audience.tags ?? []).join(', '),
		utmSource: audience.utmSource ?? '',
		utmCampaign: audience.utmCampaign ?? '',
	};
}

const split = (text: string, by: RegExp) =>
	text
		.split(by)
		.map((part) => part.trim())
		.filter(Boolean);

/** The audience as the API takes it: empty filters left out (a filter with none is every contact). */
export function audienceOf(draft: AudienceDraft): Audience {
	if (draft.kind === 'contacts') return { kind: 'contacts', contactIds: split(draft.contactIds, /\s+/) };
	const tags = split(draft.tags, /,/);
	return {
		kind: 'filter',
		...(tags.length ? { tags } : {}),
		...(draft.utmSource.trim() ? { utmSource: draft.utmSource.trim() } : {}),
		...(draft.utmCampaign.trim() ? { utmCampaign: draft.utmCampaign.trim() } : {}),
	};
}

/**
 * Who a campaign goes to: contacts matching filters (tags, origin) or a list of contacts; the API's problems
 * (`audience.tags.0: …`) under the field they name. Its count is the preview's (the saved audience, now).
 */
export function AudienceFields(props: {
	draft: AudienceDraft;
	onChange: (draft: AudienceDraft) => void;
	problems: Map<string, string>;
	disabled: boolean;
}) {
	const { draft, problems } = props;
	const set = (patch: Partial<AudienceDraft>) => props.onChange({ ...draft, ...patch });
	const text = (id: string, key: 'tags' | 'utmSource' | 'utmCampaign', label: string) => {
		const problem = problemUnder(problems, `audience.${key}`);
		return (
			<div class="field">
				<label for={id}>{label}</label>
				<input
					id={id}
					value={draft[key]}
					disabled={props.disabled}
					onInput={(e) => set({ [key]: e.currentTarget.value })}
					{...invalid(id, problem)}
				/>
				<FieldProblem id={id} message={problem} />
			</div>
		);
	};
	const listProblem = problemUnder(problems, 'audience.contactIds');
	return (
		<fieldset class="audience" disabled={props.disabled}>
			<legend>{t('campaigns.audience')}</legend>
			{(['filter', 'contacts'] as const).map((kind) => (
				<label key={kind} class="inline">
					<input
						type="radio"
						name="audience-kind"
						value={kind}
						checked={draft.kind === kind}
						onChange={() => set({ kind })}
					/>{' '}
					{t(`campaigns.audience.${kind}`)}
				</label>
			))}
			{draft.kind === 'filter' ? (
				<div class="grid-2">
					{text('audience-tags', 'tags', t('campaigns.audience.tags'))}
					{text('audience-utm-source', 'utmSource', t('campaigns.audience.utmSource'))}
					{text('audience-utm-campaign', 'utmCampaign', t('campaigns.audience.utmCampaign'))}
				</div>
			) : (
				<div class="field">
					<label for="audience-contacts">{t('campaigns.audience.contactIds')}</label>
					<textarea
						id="audience-contacts"
						rows={4}
						value={draft.contactIds}
						onInput={(e) => set({ contactIds: e.currentTarget.value })}
						{...invalid('audience-contacts', listProblem)}
					/>
					<FieldProblem id="audience-contacts" message={listProblem} />
					<AddContact
						onAdd={(id) => set({ contactIds: draft.contactIds.trim() ? `${draft.contactIds.trim()}\n${id}` : id })}
					/>
				</div>
			)}
		</fieldset>
	);
}

/** A field that finds a contact by name, e-mail or phone and adds its id to the list once chosen. */
function AddContact(props: { onAdd(id: string): void }) {
	const [typed, setTyped] = useState('');
	return (
		<div class="field">
			<label for="audience-add-contact">{t('campaigns.audience.addContact')}</label>
			<ContactIdInput
				id="audience-add-contact"
				value={typed}
				onInput={(value) => {
					// A chosen option puts a contact id in the field: it goes to the list and the field empties.
					if (/^ctc_[A-Za-z0-9]+$/.test(value.trim())) {
						props.onAdd(value.trim());
						setTyped('');
					} else setTyped(value);
				}}
			/>
		</div>
	);
}
