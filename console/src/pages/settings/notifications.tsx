import { useEffect, useState } from 'preact/hooks';
import { type NotificationSettings, useMyNotifications, useSaveMyNotifications } from '../../data/notifications';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { AlertsSection } from './alerts-section';
import { FieldProblem, fieldProblems, invalid, SaveBar, Section, Switch } from './form';

/** The form's fields: the minutes as typed, so a value the API refuses is shown with its problem, not lost. */
type Draft = Omit<NotificationSettings, 'unansweredAfterMinutes'> & { minutes: string };

const draftOf = (s: NotificationSettings): Draft => ({
	assignedWhileOffline: s.assignedWhileOffline,
	unanswered: s.unanswered,
	mentions: s.mentions,
	ruleNotifications: s.ruleNotifications,
	minutes: String(s.unansweredAfterMinutes),
});

type Choice = 'assignedWhileOffline' | 'mentions' | 'ruleNotifications';

/**
 * Settings › Notifications (every member, their own): which alerts reach them by mail. One PUT saves them all;
 * the API's problems show under the field they name.
 */
export function NotificationsPage() {
	const settings = useMyNotifications();
	const save = useSaveMyNotifications();
	const [draft, setDraft] = useState<Draft | null>(null);
	const [saved, setSaved] = useState(false);
	useEffect(() => {
		if (settings.data && draft === null) setDraft(draftOf(settings.data));
	}, [settings.data]);
	const original = settings.data ? draftOf(settings.data) : null;
	const dirty = !!draft && !!original && JSON.stringify(draft) !== JSON.stringify(original);
	const submit = useSubmit(async () => {
		if (!draft) return;
		const { minutes, ...choices } = draft;
		// The minutes go as typed (a number, or null when empty): the API says what is wrong with them.
		const answer = await save({
			...choices,
			unansweredAfterMinutes: minutes.trim() === '' ? Number.NaN : Number(minutes),
		});
		setDraft(draftOf(answer));
		setSaved(true);
	});
	const problems = fieldProblems(submit.error);
	const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
		setSaved(false);
		setDraft((d) => (d ? { ...d, [key]: value } : d));
	};
	const choice = (key: Choice, id: string) =>
		draft && (
			<>
				<Switch
					id={id}
					label={t(`notifications.${key}`)}
					hint={t(`notifications.${key}.hint`)}
					checked={draft[key]}
					onChange={(on) => set(key, on)}
				/>
				<FieldProblem id={id} message={problems.get(key)} />
			</>
		);
	return (
		<div class="page settings-page notification-settings">
			<header class="settings-header">
				<h1>{t('notifications.title')}</h1>
				<p class="muted">{t('notifications.intro')}</p>
			</header>
			<Section id="notifications-mail" title={t('notifications.mail')} intro={t('notifications.sender')}>
				{settings.error && <Problem error={settings.error} retry={() => settings.refetch()} />}
				{draft && (
					// The browser does not judge the minutes (noValidate): the API does, and its problem shows under them.
					<form
						noValidate
						onSubmit={(event) => {
							event.preventDefault();
							void submit.submit();
						}}
					>
						{choice('assignedWhileOffline', 'notify-assigned')}
						<Switch
							id="notify-unanswered"
							label={t('notifications.unanswered')}
							hint={t('notifications.unanswered.hint')}
							checked={draft.unanswered}
							onChange={(on) => set('unanswered', on)}
						/>
						<div class="field narrow">
							<label for="notify-minutes">{t('notifications.unansweredAfterMinutes')}</label>
							<input
								id="notify-minutes"
								type="number"
								min={1}
								max={1440}
								step={1}
								disabled={!draft.unanswered}
								value={draft.minutes}
								onInput={(e) => set('minutes', e.currentTarget.value)}
								{...invalid('notify-minutes', problems.get('unansweredAfterMinutes'))}
							/>
							<FieldProblem id="notify-minutes" message={problems.get('unansweredAfterMinutes')} />
						</div>
						{choice('mentions', 'notify-mentions')}
						{choice('ruleNotifications', 'notify-rules')}
						<SaveBar
							dirty={dirty}
							busy={submit.busy}
							saved={saved}
							error={problems.size > 0 ? null : submit.error}
							onDiscard={() => original && setDraft(original)}
						/>
					</form>
				)}
			</Section>
			<AlertsSection />
		</div>
	);
}
