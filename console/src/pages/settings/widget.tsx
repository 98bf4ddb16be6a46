import type { ConsoleSession } from '../../data/session';
import { useWidgetInfo } from '../../data/widget';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { fieldProblems, SaveBar } from './form';
import { Appearance } from './widget-appearance';
import { Behaviour, MessagingBubble } from './widget-bubble';
import { useWidgetDraft, type WidgetSettings } from './widget-draft';
import { PrechatForm } from './widget-fields';
import { IdentityVerification } from './widget-identity';
import { WidgetPreview } from './widget-preview';

/** What this page saves: every setting but the business hours and their messages (Settings › Business hours). */
function owned(s: WidgetSettings) {
	const { businessHours: _hours, periodMessages: _messages, ...rest } = s;
	return {
		...rest,
		// Options are edited one a line: blank lines are not options.
		customFields: rest.customFields.map((f) =>
			f.type === 'select' ? { ...f, options: (f.options ?? []).map((o) => o.trim()).filter(Boolean) } : f,
		),
	};
}

/**
 * Settings › Widget: every setting of the widget in sections, saved together with one PUT (the API's field
 * problems shown under their fields), beside the real widget previewing them and the snippet to paste.
 */
export function WidgetSettingsPage({ session }: { session: ConsoleSession }) {
	const { saved, draft, change, dirty, busy, error, notice, save, discard, justSaved } = useWidgetDraft(owned);
	const info = useWidgetInfo();
	const problems = fieldProblems(error);
	return (
		<div class="page settings-page wide">
			<header class="settings-header">
				<h1>{t('widget.title')}</h1>
				<p class="muted">{t('widget.intro')}</p>
			</header>
			{saved.error && <Problem error={saved.error} retry={() => saved.refetch()} />}
			{!draft && !saved.error && <p class="muted">{t('common.loading')}</p>}
			{draft && saved.data && (
				<div class="with-preview">
					<div class="settings-main">
						<form
							class="settings-form"
							aria-label={t('widget.title')}
							onSubmit={(event) => {
								event.preventDefault();
								void save();
							}}
						>
							<Appearance draft={draft} change={change} problems={problems} />
							<PrechatForm draft={draft} change={change} problems={problems} />
							<MessagingBubble draft={draft} change={change} problems={problems} />
							<Behaviour draft={draft} change={change} problems={problems} />
							<SaveBar dirty={dirty} busy={busy} saved={justSaved} error={error} notice={notice} onDiscard={discard} />
						</form>
						<IdentityVerification />
					</div>
					<WidgetPreview
						workspaceId={session.workspace.id}
						draft={draft}
						saved={saved.data}
						version={saved.dataUpdatedAt}
						snippet={info.data?.snippet}
					/>
				</div>
			)}
		</div>
	);
}
