import { t } from '../../i18n';
import { ColorField, FieldProblem, invalid, Section } from './form';
import type { WidgetSettings } from './widget-draft';
import { LogoUpload } from './widget-logo';

export interface SectionProps {
	draft: WidgetSettings;
	/** `wrote`: the version a write beside the form answered (the logo's), which the edit goes on from. */
	change: (update: (current: WidgetSettings) => WidgetSettings, wrote?: string | null) => void;
	problems: Map<string, string>;
}

/** A text field (or area) bound to one top-level setting; `nullable`: empty text is saved as null. */
function TextSetting(
	props: SectionProps & {
		field: 'displayName' | 'welcomeMessage' | 'ctaText' | 'offlineMessage' | 'autoMessage' | 'logoUrl';
		label: string;
		hint?: string;
		max: number;
		area?: boolean;
		nullable?: boolean;
		type?: string;
	},
) {
	const id = `widget-${props.field}`;
	const value = props.draft[props.field] ?? '';
	const problem = props.problems.get(props.field);
	const hintId = props.hint ? `${id}-hint` : undefined;
	const onInput = (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
		const text = e.currentTarget.value;
		props.change((s) => ({ ...s, [props.field]: props.nullable && text.trim() === '' ? null : text }));
	};
	const describedBy = [problem ? `${id}-problem` : '', hintId ?? ''].filter(Boolean).join(' ') || undefined;
	const common = { id, value, maxLength: props.max, onInput, ...invalid(id, problem), 'aria-describedby': describedBy };
	return (
		<div class="field">
			<label for={id}>{props.label}</label>
			{props.area ? <textarea rows={2} {...common} /> : <input type={props.type ?? 'text'} {...common} />}
			{props.hint && (
				<p class="hint muted" id={hintId}>
					{props.hint}
				</p>
			)}
			<FieldProblem id={id} message={problem} />
		</div>
	);
}

/** Settings › Widget › Appearance: name, logo, colors, corner and the texts the launcher and chat show. */
export function Appearance(props: SectionProps) {
	const { draft, change, problems } = props;
	const color = (field: 'primaryColor' | 'backgroundColor' | 'textColor', label: string) => (
		<ColorField
			id={`widget-${field}`}
			label={label}
			value={draft[field]}
			problem={problems.get(field)}
			onChange={(value) => change((s) => ({ ...s, [field]: value }))}
		/>
	);
	return (
		<Section id="appearance" title={t('widget.appearance')} intro={t('widget.appearance.intro')}>
			<TextSetting {...props} field="displayName" label={t('widget.displayName')} max={80} />
			<div class="logo-slot">
				{draft.logoUrl ? (
					<img src={draft.logoUrl} alt="" width={48} height={48} />
				) : (
					<span class="logo-empty" aria-hidden="true">
						{(draft.displayName || '?').slice(0, 1).toUpperCase()}
					</span>
				)}
				<div class="logo-fields">
					<LogoUpload
						logoUrl={draft.logoUrl}
						onSaved={(saved) => change((s) => ({ ...s, logoUrl: saved.logoUrl }), saved.etag)}
					/>
					<TextSetting
						{...props}
						field="logoUrl"
						label={t('widget.logoUrl')}
						hint={t('widget.logoUrl.hint')}
						max={2000}
						nullable
					/>
				</div>
			</div>
			<div class="colors">
				{color('primaryColor', t('widget.primaryColor'))}
				{color('backgroundColor', t('widget.backgroundColor'))}
				{color('textColor', t('widget.textColor'))}
			</div>
			<fieldset class="choice">
				<legend>{t('widget.position')}</legend>
				{(['left', 'right'] as const).map((side) => (
					<label key={side} class="inline">
						<input
							type="radio"
							name="widget-position"
							value={side}
							checked={draft.position === side}
							onChange={() => change((s) => ({ ...s, position: side }))}
						/>
						{t(`widget.position.${side}`)}
					</label>
				))}
			</fieldset>
			<fieldset class="choice">
				<legend>{t('widget.theme')}</legend>
				{(['auto', 'light', 'dark'] as const).map((theme) => (
					<label key={theme} class="inline">
						<input
							type="radio"
							name="widget-theme"
							value={theme}
							checked={draft.theme === theme}
							onChange={() => change((s) => ({ ...s, theme }))}
						/>
						{t(`widget.theme.${theme}`)}
					</label>
				))}
				<p class="muted small">{t('widget.theme.hint')}</p>
			</fieldset>
			<TextSetting {...props} field="welcomeMessage" label={t('widget.welcomeMessage')} max={1000} area />
			<TextSetting {...props} field="ctaText" label={t('widget.ctaText')} max={80} />
			<TextSetting {...props} field="offlineMessage" label={t('widget.offlineMessage')} max={1000} area />
			<TextSetting
				{...props}
				field="autoMessage"
				label={t('widget.autoMessage')}
				hint={t('widget.autoMessage.hint')}
				max={1000}
				area
				nullable
			/>
		</Section>
	);
}
