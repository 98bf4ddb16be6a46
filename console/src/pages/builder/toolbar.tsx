/**
 * The builder's toolbar (add a step, undo, redo, tidy up; the panels; save and publish) and its keys:
 * `Ctrl+S` saves anywhere, `Ctrl+Z` / `Ctrl+Shift+Z` / `Ctrl+Y` undo and redo outside a text field (where the
 * field's own undo applies). Leaving with unsaved changes asks first.
 */
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../../i18n';
import { type DocumentKind, stepTypes, typeLabel } from './schema';

export type Panel = 'step' | 'simulate' | 'versions' | 'settings' | 'runs';

export function Toolbar(props: {
	kind: DocumentKind;
	hidden: boolean;
	panel: Panel;
	/** Opens a panel, or closes it back to the step's form when it is the one open. */
	onPanel: (panel: Panel) => void;
	onAdd: (type: string) => void;
	history: { undo: () => void; redo: () => void; canUndo: boolean; canRedo: boolean };
	onTidy: () => void;
	busy: boolean;
	dirty: boolean;
	onSave: () => void;
	onPublish: () => void;
}) {
	const { kind, panel, history } = props;
	const toggle = (which: Panel, label: string) => (
		<button type="button" aria-pressed={panel === which} onClick={() => props.onPanel(which)}>
			{label}
		</button>
	);
	return (
		<div class="builder-toolbar" role="toolbar" aria-label={t('builder.toolbar')} hidden={props.hidden}>
			<select
				aria-label={t('builder.addStep')}
				value=""
				onChange={(e) => {
					const type = e.currentTarget.value;
					e.currentTarget.value = '';
					if (type) props.onAdd(type);
				}}
			>
				<option value="">{t('builder.addStep')}</option>
				{stepTypes(kind).map((type) => (
					<option key={type.type} value={type.type}>
						{typeLabel(kind, type.type)}
					</option>
				))}
			</select>
			<button type="button" onClick={history.undo} disabled={!history.canUndo} title="Ctrl+Z">
				{t('builder.undo')}
			</button>
			<button type="button" onClick={history.redo} disabled={!history.canRedo} title="Ctrl+Shift+Z">
				{t('builder.redo')}
			</button>
			<button type="button" onClick={props.onTidy}>
				{t('builder.tidy')}
			</button>
			<span class="spacer" />
			{toggle('simulate', kind === 'bot' ? t('builder.simulate') : t('builder.testRun'))}
			{kind === 'scenario' && toggle('runs', t('builder.runs'))}
			{toggle('settings', t('builder.settings'))}
			{toggle('versions', t('builder.versions'))}
			<button type="button" onClick={props.onSave} disabled={props.busy || !props.dirty} title="Ctrl+S">
				{t('builder.save')}
			</button>
			<button type="button" class="primary" onClick={props.onPublish} disabled={props.busy}>
				{t('builder.publish')}
			</button>
		</div>
	);
}

/** The editor's keys; the latest handlers are used, so they read the current render's draft. */
export function useEditorKeys(
	handlers: { save: () => void; undo: () => void; redo: () => void },
	enabled: boolean,
): void {
	const current = useRef({ handlers, enabled });
	current.current = { handlers, enabled };
	useEffect(() => {
		const onKey = (event: KeyboardEvent) => {
			if (!current.current.enabled) return;
			const typing = (event.target as HTMLElement).closest('input, textarea, select');
			if (!(event.ctrlKey || event.metaKey)) return;
			const key = event.key.toLowerCase();
			if (key === 's') {
				event.preventDefault();
				current.current.handlers.save();
			} else if (!typing && (key === 'z' || key === 'y')) {
				event.preventDefault();
				if (key === 'y' || event.shiftKey) current.current.handlers.redo();
				else current.current.handlers.undo();
			}
		};
		document.addEventListener('keydown', onKey);
		return () => document.removeEventListener('keydown', onKey);
	}, []);
}

/**
 * Leaving with unsaved changes asks first: the browser's own question for a reload or another site, and
 * `question` for a link inside the console (a click caught before the router's).
 */
export function useLeaveWarning(dirty: boolean, question: string): void {
	useEffect(() => {
		if (!dirty) return;
		const warn = (event: BeforeUnloadEvent) => event.preventDefault();
		const onClick = (event: MouseEvent) => {
			const link = (event.target as HTMLElement).closest('a[href]');
			if (!link || event.defaultPrevented || confirm(question)) return;
			event.preventDefault();
			event.stopPropagation();
		};
		window.addEventListener('beforeunload', warn);
		document.addEventListener('click', onClick, true);
		return () => {
			window.removeEventListener('beforeunload', warn);
			document.removeEventListener('click', onClick, true);
		};
	}, [dirty, question]);
}
