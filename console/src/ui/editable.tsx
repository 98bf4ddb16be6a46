import type { ComponentChild } from 'preact';
import { useId, useState } from 'preact/hooks';
import { t } from '../i18n';
import { Problem } from './problem';

/**
 * A value shown as text, edited in place: click (or Enter on) the value, change it, Enter or Save keeps it,
 * Escape drops the change. An error from the API stays beside the field with its message.
 */
export function Editable(props: {
	label: string;
	value: string | null;
	type?: 'text' | 'email' | 'tel' | 'number' | 'date';
	/** Several lines (a textarea): an input would drop the line breaks. */
	multiline?: boolean;
	/** Choices instead of free text: plain values, or values with the label shown for them. */
	options?: readonly (string | { value: string; label: string })[] | null;
	/** What to show for the value when it is not the value itself (an operator's name for its id). */
	display?: string | null;
	disabled?: boolean;
	onSave(value: string): Promise<unknown>;
	/** How a refused save shows (the API's message unless given): an editor's own notice for a 412, say. */
	problem?: (error: unknown) => ComponentChild;
}) {
	const [editing, setEditing] = useState(false);
	const [draft, setDraft] = useState('');
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const id = useId();
	const start = () => {
		if (props.disabled) return;
		setDraft(props.value ?? '');
		setError(null);
		setEditing(true);
	};
	const save = async () => {
		setBusy(true);
		try {
			await props.onSave(draft.trim());
			setEditing(false);
			setError(null);
		} catch (caught) {
			setError(caught);
		} finally {
			setBusy(false);
		}
	};
	return (
		<div class="field">
			<label for={id} class="field-label">
				{props.label}
			</label>
			{editing ? (
				// The API checks the value and says what is wrong, in its own words, for every field alike.
				<form
					class="field-edit"
					noValidate
					onSubmit={(e) => {
						e.preventDefault();
						void save();
					}}
				>
					{props.options ? (
						<select id={id} value={draft} onChange={(e) => setDraft(e.currentTarget.value)}>
							<option value="">—</option>
							{props.options.map((option) => {
								const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
								return (
									<option key={value} value={value}>
										{label}
									</option>
								);
							})}
						</select>
					) : props.multiline ? (
						<textarea
							id={id}
							value={draft}
							rows={4}
							onInput={(e) => setDraft(e.currentTarget.value)}
							onKeyDown={(e) => {
								if (e.key === 'Escape') setEditing(false);
							}}
						/>
					) : (
						<input
							id={id}
							type={props.type ?? 'text'}
							value={draft}
							// biome-ignore lint/a11y/noAutofocus: the field the operator just asked to edit takes the focus.
							autoFocus
							onInput={(e) => setDraft(e.currentTarget.value)}
							onKeyDown={(e) => {
								if (e.key === 'Escape') setEditing(false);
							}}
						/>
					)}
					<button type="submit" class="primary" disabled={busy}>
						{t('common.save')}
					</button>
					<button type="button" onClick={() => setEditing(false)}>
						{t('common.cancel')}
					</button>
				</form>
			) : (
				<button type="button" id={id} class="field-value" disabled={props.disabled} onClick={start}>
					{(props.display ?? props.value) || <span class="muted">{t('common.empty')}</span>}
				</button>
			)}
			{error !== null && (props.problem ? props.problem(error) : <Problem error={error} />)}
		</div>
	);
}
