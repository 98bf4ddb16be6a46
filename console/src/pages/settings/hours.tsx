import { useState } from 'preact/hooks';
import { useWidgetInfo } from '../../data/widget';
import { locale, t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, SaveBar, Section, Switch } from './form';
import { WeeklySchedule } from './hours-schedule';
import { useWidgetDraft, type WidgetSettings } from './widget-draft';

type PeriodMessages = WidgetSettings['periodMessages'];
const PERIODS: Array<keyof PeriodMessages> = ['inHours', 'outOfHours', 'weekend', 'holiday'];

/** What this page saves: the hours and the messages of each period. */
function owned(s: WidgetSettings) {
	return {
		businessHours: { ...s.businessHours, holidays: [...new Set(s.businessHours.holidays)].sort() },
		periodMessages: s.periodMessages,
	};
}

const zones = (() => {
	try {
		return Intl.supportedValuesOf('timeZone');
	} catch {
		return ['UTC'];
	}
})();

const dateFormat = new Intl.DateTimeFormat(locale === 'pt' ? 'pt-BR' : 'en', { dateStyle: 'full', timeZone: 'UTC' });

/**
 * Settings › Business hours: whether availability follows the hours, their time zone, the weekly schedule
 * with split shifts, holidays, and what the widget says in each period; with whether the team is open now.
 */
export function HoursPage() {
	const { saved, draft, change, dirty, busy, error, notice, save, discard, justSaved } = useWidgetDraft(owned);
	const info = useWidgetInfo();
	const problems = fieldProblems(error);
	const [holiday, setHoliday] = useState('');
	const hours = draft?.businessHours;
	const setHours = (patch: Partial<WidgetSettings['businessHours']>) =>
		change((s) => ({ ...s, businessHours: { ...s.businessHours, ...patch } }));
	const zoneProblem = problems.get('businessHours.timeZone');
	const holidaysProblem = problems.get('businessHours.holidays');
	return (
		<div class="page settings-page">
			<header class="settings-header">
				<h1>{t('hours.title')}</h1>
				<p class="muted">{t('hours.intro')}</p>
			</header>
			{info.data && (
				<p class={`availability ${info.data.online ? 'online' : 'offline'}`} data-testid="availability">
					<span class="dot" aria-hidden="true" />
					<strong>{info.data.online ? t('hours.openNow') : t('hours.closedNow')}</strong>
					<span class="muted">
						{' · '}
						{t(`hours.period.${info.data.period}`)}
						{info.data.availabilityMessage ? ` · “${info.data.availabilityMessage}”` : ''}
					</span>
				</p>
			)}
			{saved.error && <Problem error={saved.error} retry={() => saved.refetch()} />}
			{!draft && !saved.error && <p class="muted">{t('common.loading')}</p>}
			{draft && hours && (
				<form
					class="settings-form"
					aria-label={t('hours.title')}
					onSubmit={(event) => {
						event.preventDefault();
						void save();
					}}
				>
					<Section id="hours" title={t('hours.schedule')} intro={t('hours.schedule.intro')}>
						<Switch
							id="hours-enabled"
							label={t('hours.enabled')}
							checked={hours.enabled}
							onChange={(enabled) => setHours({ enabled })}
						/>
						<div class="field narrow">
							<label for="hours-zone">{t('hours.timeZone')}</label>
							<select
								id="hours-zone"
								value={hours.timeZone}
								onChange={(e) => setHours({ timeZone: e.currentTarget.value })}
								{...invalid('hours-zone', zoneProblem)}
							>
								{(zones.includes(hours.timeZone) ? zones : [hours.timeZone, ...zones]).map((zone) => (
									<option key={zone} value={zone}>
										{zone.replaceAll('_', ' ')}
									</option>
								))}
							</select>
							<FieldProblem id="hours-zone" message={zoneProblem} />
						</div>
						<WeeklySchedule weekly={hours.weekly} problems={problems} onChange={(weekly) => setHours({ weekly })} />
					</Section>

					<Section id="holidays" title={t('hours.holidays')} intro={t('hours.holidays.intro')}>
						<ul class="chips" aria-label={t('hours.holidays')}>
							{[...hours.holidays].sort().map((date) => (
								<li key={date}>
									<time dateTime={date}>{dateFormat.format(new Date(`${date}T00:00:00Z`))}</time>
									<button
										type="button"
										class="icon"
										aria-label={t('hours.removeHoliday', { date })}
										onClick={() => setHours({ holidays: hours.holidays.filter((d) => d !== date) })}
									>
										×
									</button>
								</li>
							))}
						</ul>
						{hours.holidays.length === 0 && <p class="muted">{t('hours.holidays.none')}</p>}
						<div class="add-row">
							<label for="holiday-date" class="visually-hidden">
								{t('hours.holidayDate')}
							</label>
							<input
								id="holiday-date"
								type="date"
								value={holiday}
								onInput={(e) => setHoliday(e.currentTarget.value)}
								{...invalid('holiday-date', holidaysProblem)}
							/>
							<button
								type="button"
								disabled={!holiday}
								onClick={() => {
									if (!hours.holidays.includes(holiday)) setHours({ holidays: [...hours.holidays, holiday] });
									setHoliday('');
								}}
							>
								{t('hours.addHoliday')}
							</button>
						</div>
						<FieldProblem id="holiday-date" message={holidaysProblem} />
					</Section>

					<Section id="messages" title={t('hours.messages')} intro={t('hours.messages.intro')}>
						{PERIODS.map((period) => {
							const id = `message-${period}`;
							const problem = problems.get(`periodMessages.${period}`);
							return (
								<div class="field" key={period}>
									<label for={id}>{t(`hours.message.${period}`)}</label>
									<textarea
										id={id}
										rows={2}
										maxLength={500}
										value={draft.periodMessages[period]}
										onInput={(e) => {
											const text = e.currentTarget.value;
											change((s) => ({ ...s, periodMessages: { ...s.periodMessages, [period]: text } }));
										}}
										{...invalid(id, problem)}
									/>
									<FieldProblem id={id} message={problem} />
								</div>
							);
						})}
					</Section>
					<SaveBar dirty={dirty} busy={busy} saved={justSaved} error={error} notice={notice} onDiscard={discard} />
				</form>
			)}
		</div>
	);
}
