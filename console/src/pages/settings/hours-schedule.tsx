import { locale, t } from '../../i18n';
import { FieldProblem, invalid } from './form';
import type { WidgetSettings } from './widget-draft';

type Weekly = WidgetSettings['businessHours']['weekly'];
export type Weekday = keyof Weekly;
export const WEEKDAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const dayName = new Intl.DateTimeFormat(locale === 'pt' ? 'pt-BR' : 'en', { weekday: 'long', timeZone: 'UTC' });
/** The weekday's name in the console's language (2024-01-01 was a Monday). */
function nameOf(day: Weekday): string {
	return dayName.format(new Date(Date.UTC(2024, 0, 1 + WEEKDAYS.indexOf(day))));
}

// A time input cannot say 24:00: the end of the day is shown as 00:00, which as an end means nothing else.
const shown = (end: string) => (end === '24:00' ? '00:00' : end);
const stored = (end: string) => (end === '00:00' ? '24:00' : end);

/**
 * The weekly schedule: per day its open periods (several for a split shift, none when closed), each added,
 * changed or removed in place; Monday's periods can be copied to the other working days.
 */
export function WeeklySchedule(props: {
	weekly: Weekly;
	onChange: (weekly: Weekly) => void;
	problems: Map<string, string>;
}) {
	const { weekly } = props;
	const setDay = (day: Weekday, periods: Weekly[Weekday]) => props.onChange({ ...weekly, [day]: periods });
	return (
		<div class="schedule">
			{WEEKDAYS.map((day) => {
				const periods = weekly[day];
				const name = nameOf(day);
				const dayProblem = props.problems.get(`businessHours.weekly.${day}`);
				return (
					<fieldset key={day} class="day" aria-describedby={dayProblem ? `day-${day}-problem` : undefined}>
						<legend>{name}</legend>
						<div class="periods">
							{periods.length === 0 && <span class="muted closed-day">{t('hours.closed')}</span>}
							{periods.map((period, index) => {
								const id = `${day}-${index}`;
								const problem =
									props.problems.get(`businessHours.weekly.${day}.${index}`) ??
									props.problems.get(`businessHours.weekly.${day}.${index}.start`) ??
									props.problems.get(`businessHours.weekly.${day}.${index}.end`);
								const change = (patch: Partial<typeof period>) =>
									setDay(
										day,
										periods.map((p, i) => (i === index ? { ...p, ...patch } : p)),
									);
								return (
									<div class="period" key={index}>
										<label class="visually-hidden" for={`${id}-start`}>
											{t('hours.opens', { day: name, n: index + 1 })}
										</label>
										<input
											id={`${id}-start`}
											type="time"
											required
											value={period.start}
											onInput={(e) => change({ start: e.currentTarget.value })}
											{...invalid(id, problem)}
										/>
										<span aria-hidden="true">–</span>
										<label class="visually-hidden" for={`${id}-end`}>
											{t('hours.closes', { day: name, n: index + 1 })}
										</label>
										<input
											id={`${id}-end`}
											type="time"
											required
											value={shown(period.end)}
											onInput={(e) => change({ end: stored(e.currentTarget.value) })}
											{...invalid(id, problem)}
										/>
										<button
											type="button"
											class="icon"
											aria-label={t('hours.removePeriod', { day: name, n: index + 1 })}
											onClick={() =>
												setDay(
													day,
													periods.filter((_, i) => i !== index),
												)
											}
										>
											×
										</button>
										<FieldProblem id={id} message={problem} />
									</div>
								);
							})}
						</div>
						<div class="day-actions">
							<button
								type="button"
								disabled={periods.length >= 8}
								aria-label={t('hours.addPeriodTo', { day: name })}
								onClick={() => {
									const last = periods.at(-1);
									const next = last
										? { start: last.end === '24:00' ? '23:00' : last.end, end: '24:00' }
										: { start: '09:00', end: '18:00' };
									setDay(day, [...periods, next]);
								}}
							>
								+ {t('hours.addPeriod')}
							</button>
							{day === 'mon' && (
								<button
									type="button"
									onClick={() => props.onChange({ ...weekly, tue: periods, wed: periods, thu: periods, fri: periods })}
								>
									{t('hours.copyToWeekdays')}
								</button>
							)}
						</div>
						<FieldProblem id={`day-${day}`} message={dayProblem} />
					</fieldset>
				);
			})}
		</div>
	);
}
