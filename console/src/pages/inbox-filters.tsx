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
}

export const DEFAULT_FILTERS: InboxFilters = {
	view: 'all',
	status: 'open',
	tag: '',
	groupId: '',
	channel: '',
	origin: '',
	utmSource: '',
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

/** The list's query parameters for these filters (the API's names). */
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

const CHANNELS = ['widget', 'api', 'whatsapp', 'email'];

/** The views (mine, unassigned, all), the status, and the narrower filters: tag, group, channel, origin. */
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
			<details>
				<summary>{t('inbox.filters')}</summary>
				<div class="filter-grid">
					<label>
						{t('inbox.status')}
						<select
							value={filters.status}
							onChange={(e) => set('status', e.currentTarget.value as InboxFilters['status'])}
						>
							<option value="open">{t('inbox.status.open')}</option>
							<option value="pending">{t('inbox.status.pending')}</option>
							<option value="closed">{t('inbox.status.closed')}</option>
							<option value="">{t('inbox.status.any')}</option>
						</select>
					</label>
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
				<button type="button" onClick={() => onChange({ ...DEFAULT_FILTERS, view: filters.view })}>
					{t('inbox.clearFilters')}
				</button>
			</details>
		</div>
	);
}
