/**
 * The report's filters, kept in the page's query string (`/reports?from=…&utmSource=google`) so a report can be
 * linked and comes back with the browser's Back; and the bar that changes them.
 */
import { useState } from 'preact/hooks';
import { useLocation, useSearch } from 'wouter-preact';
import type { Directory } from '../../data/workspace';
import { t } from '../../i18n';

export const CLICKS = ['search', 'social', 'none'] as const;
type Click = (typeof CLICKS)[number];

/** What the URL may say: the API's query for the conversations report, and the campaign shown. */
export interface ReportFilters {
	from?: string;
	to?: string;
	channel?: string;
	groupId?: string;
	utmSource?: string;
	utmCampaign?: string;
	click?: Click;
	campaign?: string;
}

const KEYS = ['from', 'to', 'channel', 'groupId', 'utmSource', 'utmCampaign', 'click', 'campaign'] as const;
const DAY_MS = 86_400_000;
const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);

/** The filters the URL holds (unknown or malformed values left out), and a setter that rewrites the URL. */
export function useReportFilters(): [ReportFilters, (next: ReportFilters) => void] {
	const search = useSearch();
	const [, navigate] = useLocation();
	const params = new URLSearchParams(search);
	const filters: ReportFilters = {};
	for (const key of KEYS) {
		const value = params.get(key)?.trim();
		if (!value) continue;
		if ((key === 'from' || key === 'to') && !isDay(value)) continue;
		if (key === 'click' && !CLICKS.includes(value as Click)) continue;
		(filters as Record<string, string>)[key] = value;
	}
	const setFilters = (next: ReportFilters) => {
		const query = new URLSearchParams();
		for (const key of KEYS) {
			const value = next[key];
			if (value) query.set(key, value);
		}
		const text = query.toString();
		navigate(text ? `/reports?${text}` : '/reports', { replace: true });
	};
	return [filters, setFilters];
}

/** The conversations report's query for these filters (the campaign is not one of its filters). */
export function reportQuery({ campaign: _, ...query }: ReportFilters) {
	return query;
}

/** Today's date (YYYY-MM-DD) in `timeZone`: the workspace's, in which the report counts its days. */
export function today(timeZone: string | undefined): string {
	return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
		new Date(),
	);
}

/** The range of the last `days` days to `to`, both included. */
export function lastDays(days: number, to: string): { from: string; to: string } {
	return { from: new Date(Date.parse(to) - (days - 1) * DAY_MS).toISOString().slice(0, 10), to };
}

const PRESETS = [7, 30, 90];

export interface FilterBarProps {
	filters: ReportFilters;
	onChange: (next: ReportFilters) => void;
	/** The range the shown report covers (the API's default when the URL names none), and its time zone. */
	range?: { from: string; to: string; timeZone: string };
	directory?: Directory;
	/** Channels, utm sources and campaigns seen in reports so far: the choices offered. */
	seen: { channels: string[]; utmSources: string[]; utmCampaigns: string[] };
}

export function FilterBar({ filters, onChange, range, directory, seen }: FilterBarProps) {
	const set = (change: ReportFilters) => onChange({ ...filters, ...change });
	const end = today(range?.timeZone);
	const from = filters.from ?? range?.from ?? '';
	const to = filters.to ?? range?.to ?? '';
	const filtered = KEYS.some((key) => key !== 'campaign' && filters[key]);
	return (
		<form class="report-filters" aria-label={t('reports.filters')} onSubmit={(event) => event.preventDefault()}>
			<fieldset class="range">
				<legend>{t('reports.range')}</legend>
				<div class="presets">
					{PRESETS.map((days) => {
						const preset = lastDays(days, end);
						return (
							<button
								key={days}
								type="button"
								aria-pressed={from === preset.from && to === preset.to}
								onClick={() => set(preset)}
							>
								{t('reports.lastDays', { n: days })}
							</button>
						);
					})}
				</div>
				<div class="dates">
					<Field id="report-from" label={t('reports.from')}>
						<input
							id="report-from"
							type="date"
							value={from}
							max={to || undefined}
							onChange={(e) => set({ from: e.currentTarget.value || undefined, to: to || undefined })}
						/>
					</Field>
					<Field id="report-to" label={t('reports.to')}>
						<input
							id="report-to"
							type="date"
							value={to}
							min={from || undefined}
							onChange={(e) => set({ from: from || undefined, to: e.currentTarget.value || undefined })}
						/>
					</Field>
				</div>
			</fieldset>
			<Field id="report-channel" label={t('reports.channel')}>
				<select
					id="report-channel"
					value={filters.channel ?? ''}
					onChange={(e) => set({ channel: e.currentTarget.value || undefined })}
				>
					<option value="">{t('reports.allChannels')}</option>
					{withCurrent(seen.channels, filters.channel).map((channel) => (
						<option key={channel} value={channel}>
							{channel}
						</option>
					))}
				</select>
			</Field>
			<Field id="report-group" label={t('reports.group')}>
				<select
					id="report-group"
					value={filters.groupId ?? ''}
					onChange={(e) => set({ groupId: e.currentTarget.value || undefined })}
				>
					<option value="">{t('reports.allGroups')}</option>
					{(directory?.groups ?? []).map((group) => (
						<option key={group.id} value={group.id}>
							{group.name}
						</option>
					))}
					{filters.groupId && !directory?.groups.some((g) => g.id === filters.groupId) && (
						<option value={filters.groupId}>{filters.groupId}</option>
					)}
				</select>
			</Field>
			<TextFilter
				id="report-utm-source"
				label={t('reports.utmSource')}
				value={filters.utmSource}
				choices={seen.utmSources}
				onCommit={(utmSource) => set({ utmSource })}
			/>
			<TextFilter
				id="report-utm-campaign"
				label={t('reports.utmCampaign')}
				value={filters.utmCampaign}
				choices={seen.utmCampaigns}
				onCommit={(utmCampaign) => set({ utmCampaign })}
			/>
			<Field id="report-click" label={t('reports.click')}>
				<select
					id="report-click"
					value={filters.click ?? ''}
					onChange={(e) => set({ click: (e.currentTarget.value || undefined) as Click | undefined })}
				>
					<option value="">{t('reports.anyClick')}</option>
					{CLICKS.map((click) => (
						<option key={click} value={click}>
							{t(`reports.click.${click}`)}
						</option>
					))}
				</select>
			</Field>
			{filtered && (
				<button type="button" class="clear" onClick={() => onChange({ campaign: filters.campaign })}>
					{t('reports.clearFilters')}
				</button>
			)}
		</form>
	);
}

/** The choices, with the current value among them even when no report has shown it yet (a linked filter). */
function withCurrent(choices: string[], current: string | undefined): string[] {
	return current && !choices.includes(current) ? [...choices, current] : choices;
}

/**
 * A free-text filter with suggestions, applied when the field is left or Enter is pressed, not at each key
 * (each value is a new report).
 */
function TextFilter(props: {
	id: string;
	label: string;
	value?: string;
	choices: string[];
	onCommit: (value?: string) => void;
}) {
	const [draft, setDraft] = useState<string | null>(null);
	const listId = `${props.id}-choices`;
	const commit = () => {
		if (draft === null) return;
		const value = draft.trim() || undefined;
		setDraft(null);
		if (value !== props.value) props.onCommit(value);
	};
	return (
		<Field id={props.id} label={props.label}>
			<input
				id={props.id}
				type="search"
				list={listId}
				value={draft ?? props.value ?? ''}
				placeholder={t('reports.any')}
				onInput={(e) => setDraft(e.currentTarget.value)}
				onBlur={commit}
				onKeyDown={(e) => e.key === 'Enter' && commit()}
			/>
			<datalist id={listId}>
				{props.choices.map((choice) => (
					<option key={choice} value={choice} />
				))}
			</datalist>
		</Field>
	);
}

/** A label above its control, tied by id (wrapping would put a select's chosen option into the label's name). */
export function Field({ id, label, children }: { id: string; label: string; children: preact.ComponentChildren }) {
	return (
		<div class="field">
			<label for={id}>{label}</label>
			{children}
		</div>
	);
}
