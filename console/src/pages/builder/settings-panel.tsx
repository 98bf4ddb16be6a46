/**
 * A bot's or a scenario's settings beside the canvas: name, on or off, what starts it (and for a bot its
 * channels and priority), drawn from the API's schema of a change (`BotChanges`, `ScenarioChanges`) and saved
 * with one PATCH of the fields changed; a scenario's inbound webhooks under them.
 */
import { useState } from 'preact/hooks';
import { useDocumentCache } from '../../data/builder';
import { documentsOf, type Saved } from '../../data/documents';
import { t } from '../../i18n';
import { enterSendsNothing } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { fieldProblems } from '../settings/form';
import { InboundWebhooks } from './inbound-webhooks';
import { type Pause, PausedBox } from './paused';
import { type DocumentKind, type JsonSchema, named, resolve } from './schema';
import { ObjectFields } from './schema-form';

/** A trigger as the API shows it (`{ kind, keywords: [], stageId: null }`) cut to the fields its kind takes. */
function asInput(trigger: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
	const variant = resolve(schema)
		.oneOf?.map(resolve)
		.find((v) => v.properties?.kind?.enum?.[0] === trigger.kind);
	if (!variant?.properties) return { kind: trigger.kind };
	const kept = Object.entries(trigger).filter(
		([key, value]) =>
			key in (variant.properties ?? {}) && value !== null && !(Array.isArray(value) && value.length === 0),
	);
	return Object.fromEntries(kept);
}

type Props = { kind: DocumentKind; saved: Saved & Record<string, unknown> };

/**
 * A paused scenario's settings open with what paused it and Resume; the form starts again from the saved
 * settings when it is paused or resumed, so its "on" never lags behind (nor saves over) the real state.
 */
export function SettingsPanel(props: Props) {
	const paused = props.kind === 'scenario' ? (props.saved.paused as Pause | null | undefined) : null;
	return (
		<>
			{paused && <PausedBox id={props.saved.id} paused={paused} />}
			<SettingsForm key={paused?.at ?? 'running'} {...props} />
			{props.kind === 'scenario' && <InboundWebhooks scenarioId={props.saved.id} />}
		</>
	);
}

function SettingsForm(props: Props) {
	const { kind, saved } = props;
	const cache = useDocumentCache(kind, saved.id);
	const schema = named(kind === 'bot' ? 'BotChanges' : 'ScenarioChanges');
	const initial = () => {
		const value: Record<string, unknown> = { name: saved.name, enabled: saved.enabled };
		value.trigger = asInput(
			saved.trigger as Record<string, unknown>,
			named(kind === 'bot' ? 'BotTrigger' : 'ScenarioTrigger'),
		);
		if (kind === 'bot') {
			value.channels = saved.channels;
			value.priority = saved.priority;
		}
		return value;
	};
	const [value, setValue] = useState(initial);
	const [error, setError] = useState<unknown>(null);
	const [done, setDone] = useState(false);
	const start = initial();
	const changed = Object.fromEntries(
		Object.entries(value).filter(([key, v]) => JSON.stringify(v) !== JSON.stringify(start[key])),
	);
	const save = async (event: Event) => {
		event.preventDefault();
		setError(null);
		setDone(false);
		try {
			cache.settingsSaved(await documentsOf(kind).saveSettings(saved.id, changed));
			setDone(true);
		} catch (caught) {
			setError(caught);
		}
	};
	const problems = fieldProblems(error);
	return (
		<form class="settings-panel" onSubmit={save} onKeyDown={enterSendsNothing} aria-labelledby="settings-panel-title">
			<h2 id="settings-panel-title">{t('builder.settings')}</h2>
			<ObjectFields
				schema={schema}
				value={value}
				onChange={setValue}
				path={[]}
				ctx={{ stepIds: [], variables: [], problems, idPrefix: 'settings' }}
				skip={['definition']}
			/>
			{error !== null && problems.size === 0 && <Problem error={error} />}
			<button type="submit" class="primary" disabled={Object.keys(changed).length === 0}>
				{t('builder.saveSettings')}
			</button>
			{done && <p role="status">{t('builder.saved')}</p>}
		</form>
	);
}
