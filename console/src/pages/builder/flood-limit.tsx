/**
 * The workspace's flood protection limit (`scenarioRunsPerMinute`, `PATCH /v3/automation-settings`), under
 * the scenarios it guards: the admin who finds one paused in the list sees, and may raise, the limit beside
 * it. The API judges the value (1 to 100,000 whole runs); its 422 is shown at the field.
 */
import { useState } from 'preact/hooks';
import { useAutomationSettings, useSaveFloodLimit } from '../../data/builder';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid } from '../settings/form';

const ID = 'flood-limit';

export function FloodLimit() {
	const settings = useAutomationSettings();
	const saveLimit = useSaveFloodLimit();
	// What the admin typed, or null while the field shows the saved limit.
	const [typed, setTyped] = useState<string | null>(null);
	const [saved, setSaved] = useState(false);
	const value = typed ?? String(settings.data?.scenarioRunsPerMinute ?? '');
	const save = useSubmit(async () => {
		setSaved(false);
		// Sent as typed (an empty field is 0): what is not a whole number in range is the API's to refuse.
		await saveLimit(Number(value));
		setTyped(null);
		setSaved(true);
	});
	const problem = fieldProblems(save.error).get('scenarioRunsPerMinute');
	return (
		<section class="flood-limit" aria-labelledby="flood-limit-title">
			<h2 id="flood-limit-title">{t('flood.limitTitle')}</h2>
			<p class="muted">{t('flood.limitIntro')}</p>
			{settings.error && <Problem error={settings.error} retry={() => settings.refetch()} />}
			<form
				noValidate
				onSubmit={(event) => {
					event.preventDefault();
					void save.submit();
				}}
			>
				<label for={ID}>{t('flood.limit')}</label>
				<div class="flood-limit-row">
					<input
						id={ID}
						type="number"
						inputMode="numeric"
						min={1}
						max={100_000}
						step={1}
						value={value}
						disabled={!settings.data}
						onInput={(e) => {
							setTyped(e.currentTarget.value);
							setSaved(false);
						}}
						{...invalid(ID, problem)}
					/>
					<button type="submit" disabled={!settings.data || save.busy}>
						{t('flood.save')}
					</button>
					<span class="muted" role="status">
						{saved ? t('flood.saved') : ''}
					</span>
				</div>
				<FieldProblem id={ID} message={problem} />
				{save.error !== null && problem === undefined && <Problem error={save.error} />}
			</form>
		</section>
	);
}
