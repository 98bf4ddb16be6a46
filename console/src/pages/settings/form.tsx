/**
 * The small parts every settings page is built from: a section with its heading, a labelled switch, a color
 * field (picker and hex text), a secret shown once with its copy button, the save bar, and the API's 422
 * field problems shown under the field they name.
 */
import type { ComponentChild, ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, changedElsewhere } from '../../api/client';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';

/**
 * The problems of a 422 by field path, from the API's message (`json.primaryColor: must be …; json.x: …`):
 * `problems.get('primaryColor')`. Empty for any other error.
 */
export function fieldProblems(error: unknown): Map<string, string> {
	const found = new Map<string, string>();
	if (!(error instanceof ApiError) || error.status !== 422) return found;
	for (const part of error.message.split('; ')) {
		const match = /^json\.([\w.]+): (.+)$/.exec(part);
		if (match?.[1] && match[2]) found.set(match[1], match[2]);
	}
	return found;
}

/**
 * The problem named for `path` or for anything inside it (`options.2`, `audience.tags.0`): a field that edits
 * a list or an object shows its parts' problems too.
 */
export function problemUnder(problems: Map<string, string>, path: string): string | undefined {
	for (const [at, message] of problems) if (at === path || at.startsWith(`${path}.`)) return message;
	return undefined;
}

/** The problem the API named for `path`, under its field (referenced by the field's aria-describedby). */
export function FieldProblem({ id, message }: { id: string; message: string | undefined }) {
	if (!message) return null;
	return (
		<p class="field-problem" id={`${id}-problem`}>
			{message}
		</p>
	);
}

/** The attributes that tie a field to its problem, if it has one. */
export function invalid(id: string, message: string | undefined) {
	return message ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-problem` } : {};
}

export function Section(props: { id: string; title: string; intro?: string; children: ComponentChildren }) {
	return (
		<section class="settings-section" aria-labelledby={`${props.id}-title`}>
			<h2 id={`${props.id}-title`}>{props.title}</h2>
			{props.intro && <p class="muted intro">{props.intro}</p>}
			{props.children}
		</section>
	);
}

/**
 * A checkbox drawn as a switch: a real input, so Space toggles it and its label reads out; its `hint`, if any,
 * is a line under it that the switch is described by.
 */
export function Switch(props: {
	id: string;
	label: string;
	hint?: string;
	checked: boolean;
	onChange: (on: boolean) => void;
}) {
	const toggle = (
		<div class="switch">
			<input
				id={props.id}
				type="checkbox"
				role="switch"
				aria-checked={props.checked}
				checked={props.checked}
				onChange={(e) => props.onChange(e.currentTarget.checked)}
				{...(props.hint ? { 'aria-describedby': `${props.id}-hint` } : {})}
			/>
			<label for={props.id}>{props.label}</label>
		</div>
	);
	if (!props.hint) return toggle;
	return (
		<div class="switch-with-hint">
			{toggle}
			<p class="hint muted" id={`${props.id}-hint`}>
				{props.hint}
			</p>
		</div>
	);
}

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** Whether `value` is a color the API and the widget accept. */
export function isHex(value: string): boolean {
	return HEX.test(value);
}

/** `#abc` as `#aabbcc`: the only form a color input takes. */
function sixDigits(value: string): string {
	if (!isHex(value)) return '#000000';
	if (value.length === 7) return value.toLowerCase();
	return `#${[...value.slice(1)].map((c) => c + c).join('')}`.toLowerCase();
}

/** A color: the picker and the hex text stay in step; the text may hold anything (the API judges it). */
export function ColorField(props: {
	id: string;
	label: string;
	value: string;
	problem: string | undefined;
	onChange: (value: string) => void;
}) {
	return (
		<div class="field">
			<label for={props.id}>{props.label}</label>
			<div class="color-field">
				<input
					type="color"
					aria-label={t('settings.colorPicker', { name: props.label })}
					value={sixDigits(props.value)}
					onInput={(e) => props.onChange(e.currentTarget.value)}
				/>
				<input
					id={props.id}
					type="text"
					spellcheck={false}
					autoComplete="off"
					maxLength={20}
					value={props.value}
					onInput={(e) => props.onChange(e.currentTarget.value.trim())}
					{...invalid(props.id, props.problem)}
				/>
			</div>
			<FieldProblem id={props.id} message={props.problem} />
		</div>
	);
}

/** A copy button that says so for a moment once it has copied. */
export function CopyButton({ text, label }: { text: string; label?: string }) {
	const [copied, setCopied] = useState(false);
	return (
		<button
			type="button"
			onClick={async () => {
				await navigator.clipboard?.writeText(text).catch(() => {});
				setCopied(true);
				setTimeout(() => setCopied(false), 1500);
			}}
		>
			{copied ? t('settings.copied') : (label ?? t('common.copy'))}
		</button>
	);
}

/** A secret, token or link the API shows this once: kept on screen until dismissed, with its copy button. */
export function ShownOnce(props: { value: string; note: string; testId: string; onDone: () => void }) {
	return (
		<div class="shown-once" role="status">
			<p class="notice">{props.note}</p>
			<p class="token" data-testid={props.testId}>
				{props.value}
			</p>
			<div class="actions">
				<CopyButton text={props.value} />
				<button type="button" onClick={props.onDone}>
					{t('settings.done')}
				</button>
			</div>
		</div>
	);
}

/** The bar under a form: its state (unsaved, saved), the error of the last save, Discard and Save. */
export function SaveBar(props: {
	dirty: boolean;
	busy: boolean;
	saved: boolean;
	error: unknown;
	/** What a save refused as changed elsewhere (412) shows instead of the API's message. */
	notice?: (error: unknown) => ComponentChild;
	onDiscard: () => void;
}) {
	const { error, notice } = props;
	return (
		<div class="save-bar">
			{error !== null && (changedElsewhere(error) && notice ? notice(error) : <Problem error={error} />)}
			<span class="muted" role="status">
				{props.dirty ? t('settings.unsaved') : props.saved ? t('settings.saved') : ''}
			</span>
			<button type="button" disabled={!props.dirty || props.busy} onClick={props.onDiscard}>
				{t('settings.discard')}
			</button>
			<button type="submit" class="primary" disabled={!props.dirty || props.busy}>
				{props.busy ? t('settings.saving') : t('settings.save')}
			</button>
		</div>
	);
}
