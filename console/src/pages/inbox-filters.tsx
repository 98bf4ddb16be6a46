import { useDirectory, useTags } from '../data/workspace';
import { t } from '../i18n';

export type View = 'mine' | 'unassigned' | 'all';
export interface InboxFilters {
	view: View;
	status: 'open' | 'pending' | 'closed' | '';
	tag: string;
	groupId: string;
	channel: string;
	origin: '' | 'search' | 'social' | 'utm';
	utmSource: string;
	/** The list's order: latest activity first, or the customer waiting longest first. */
	sort: 'activity' | 'waiting';
}

export const DEFAULT_FILTERS: InboxFilters = {
	view: 'all',
	status: 'open',
	tag: '',
	groupId: '',
	channel: '',
	origin: '',
	utmSource: '',
	sort: 'activity',
};

const KEY = 'parley.inbox.filters';

/** The filters the operator chose last, kept for this browser tab's life (a reload keeps them). */
export function savedFilters(): InboxFilters {
	try {
		return { ...DEFAULT_FILTERS, ...(JSON.parse(sessionStorage.getItem(KEY) ?? '{}') as Partial<InboxFilters>) };
	} catch {
		return DEFAULT_FILTERS;
	}
}
export function saveFilters(filters: InboxFilters): void {
	sessionStorage.setItem(KEY, JSON.stringify(filters));
}

/** The list's query parameters for these filters (the API's names); the search takes all but the order. */
export function filterQuery(filters: InboxFilters, operatorId: string) {
	return {
		...(filters.status ? { status: filters.status } : {}),
		...(filters.view === 'mine'
			? { assigneeId: operatorId }
			: filters.view === 'unassigned'
				? { assigneeId: 'none' }
				: {}),
		...(filters.tag ? { tag: filters.tag } : {}),
		...(filters.groupId ? { groupId: filters.groupId } : {}),
		...(filters.channel ? { channel: filters.channel } : {}),
		...(filters.origin === 'search' ? { hasGclid: 'true' as const } : {}),
		...(filters.origin === 'social' ? { hasFbclid: 'true' as const } : {}),
		...(filters.origin === 'utm' && filters.utmSource ? { utmSource: filters.utmSource } : {}),
	};
}

/** The inbox list's query for these filters: their parameters and the order. */
export function listQuery(filters: InboxFilters, operatorId: string) {
	return { ...filterQuery(filters, operatorId), sort: filters.sort };
}

const CHANNELS = ['widget', 'api', 'whatsapp', 'email'];
/** The status views, always in sight: open, pending (snoozed ones too), closed, and all of them. */
const STATUS_VIEWS = ['open', 'pending', 'closed', ''] as const;

/**
 * The views (mine, unassigned, all), the status views and the order in sight, and the narrower filters (tag,
 * group, channel, origin) under Filters.
 */
export function InboxFilterBar({ filters, onChange }: { filters: InboxFilters; onChange(next: InboxFilters): void }) {
	const directory = useDirectory();
	const tags = useTags();
	const set = <K extends keyof InboxFilters>(key: K, value: InboxFilters[K]) => onChange({ ...filters, [key]: value });
	return (
		<div class="filters">
			<fieldset class="views">
				<legend class="visually-hidden">{t('inbox.views')}</legend>
				{(['mine', 'unassigned', 'all'] as const).map((name) => (
					<button type="button" key={name} aria-pressed={filters.view === name} onClick={() => set('view', name)}>
						{t(`inbox.${name}`)}
					</button>
				))}
			</fieldset>
			<div class="views status-views">
				<fieldset class="views">
					<legend class="visually-hidden">{t('inbox.statusViews')}</legend>
					{STATUS_VIEWS.map((status) => (
						<button
							type="button"
							key={status}
							aria-pressed={filters.status === status}
							onClick={() => set('status', status)}
						>
							{t(status ? `inbox.status.${status}` : 'inbox.status.any')}
						</button>
					))}
				</fieldset>
				<label class="inline sort">
					<span class="visually-hidden">{t('inbox.sort')}</span>
					<select value={filters.sort} onChange={(e) => set('sort', e.currentTarget.value as InboxFilters['sort'])}>
						<option value="activity">{t('inbox.sort.activity')}</option>
						<option value="waiting">{t('inbox.sort.waiting')}</option>
					</select>
				</label>
			</div>
			<details>
				<summary>{t('inbox.filters')}</summary>
				<div class="filter-grid">
					<label>
						{t('inbox.tag')}
						<select value={filters.tag} onChange={(e) => set('tag', e.currentTarget.value)}>
							<option value="">{t('inbox.any')}</option>
							{tags.data?.map((tag) => (
								<option key={tag.id} value={tag.name}>
									{tag.name}
								</option>
							))}
						</select>
					</label>
					<label>
						{t('inbox.group')}
						<select value={filters.groupId} onChange={(e) => set('groupId', e.currentTarget.value)}>
							<option value="">{t('inbox.any')}</option>
							<option value="none">{t('common.none')}</option>
							{directory.data?.groups.map((group) => (
								<option key={group.id} value={group.id}>
									{group.name}
								</option>
							))}
						</select>
					</label>
					<label>
						{t('inbox.channel')}
						<select value={filters.channel} onChange={(e) => set('channel', e.currentTarget.value)}>
							<option value="">{t('inbox.any')}</option>
							{CHANNELS.map((channel) => (
								<option key={channel} value={channel}>
									{channel}
								</option>
							))}
						</select>
					</label>
					<label>
						{t('inbox.origin')}
						<select
							value={filters.origin}
							onChange={(e) => set('origin', e.currentTarget.value as InboxFilters['origin'])}
						>
							<option value="">{t('inbox.any')}</option>
							<option value="search">{t('inbox.origin.search')}</option>
							<option value="social">{t('inbox.origin.social')}</option>
							<option value="utm">{t('inbox.origin.utm')}</option>
						</select>
					</label>
					{filters.origin === 'utm' && (
						<label>
							{t('inbox.utmSource')}
							<input
								value={filters.utmSource}
								placeholder="google"
								onChange={(e) => set('utmSource', e.currentTarget.value.trim())}
							/>
						</label>
					)}
				</div>
				<button
					type="button"
					onClick={() =>
						onChange({ ...DEFAULT_FILTERS, view: filters.view, status: filters.status, sort: filters.sort })
					}
				>
					{t('inbox.clearFilters')}
				</button>
			</details>
		</div>
	);
}
