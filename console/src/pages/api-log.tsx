import { useState } from 'preact/hooks';
import { useApiLog } from '../data/me';
import { operatorName, useDirectory } from '../data/workspace';
import { t, when } from '../i18n';
import { Problem } from '../ui/problem';

interface LogFilters {
	operatorId: string;
	credential: '' | 'token' | 'session';
	method: '' | 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
	status: '' | '2xx' | '3xx' | '4xx' | '5xx';
	rateLimited: '' | 'true';
	path: string;
}

const NONE: LogFilters = { operatorId: '', credential: '', method: '', status: '', rateLimited: '', path: '' };

/** The workspace's API log, newest first, filtered by who, which credential, method, status class and path. */
export function ApiLog() {
	const directory = useDirectory();
	const [filters, setFilters] = useState<LogFilters>(NONE);
	const set = <K extends keyof LogFilters>(key: K, value: LogFilters[K]) => setFilters({ ...filters, [key]: value });
	// Only what is set, and a path only once it is one the API takes (it starts with /v3/).
	const query = Object.fromEntries(
		Object.entries(filters).filter(([key, value]) => value !== '' && (key !== 'path' || value.startsWith('/v3/'))),
	) as { [K in keyof LogFilters]?: Exclude<LogFilters[K], ''> };
	const logs = useApiLog(query);
	const entries = logs.data?.pages.flatMap((page) => page.data) ?? [];
	const choice = <K extends keyof LogFilters>(key: K, label: string, options: [LogFilters[K], string][]) => (
		<label>
			{label}
			<select value={filters[key]} onChange={(e) => set(key, e.currentTarget.value as LogFilters[K])}>
				<option value="">{t('inbox.any')}</option>
				{options.map(([value, text]) => (
					<option key={value} value={value}>
						{text}
					</option>
				))}
			</select>
		</label>
	);
	return (
		<>
			<h2>{t('api.log')}</h2>
			<div class="filter-grid">
				{choice('operatorId', t('api.log.operator'), directory.data?.operators.map((o) => [o.id, o.name]) ?? [])}
				{choice('credential', t('api.log.credential'), [
					['token', 'Token V3'],
					['session', t('api.log.console')],
				])}
				{choice(
					'method',
					t('api.log.method'),
					(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map((m) => [m, m]),
				)}
				{choice(
					'status',
					t('api.log.status'),
					(['2xx', '3xx', '4xx', '5xx'] as const).map((s) => [s, s]),
				)}
				{choice('rateLimited', t('api.log.rate'), [['true', t('api.log.limited')]])}
				<label>
					{t('api.log.path')}
					<input
						value={filters.path}
						placeholder="/v3/messages"
						onInput={(e) => set('path', e.currentTarget.value.trim())}
					/>
				</label>
			</div>
			{logs.error && <Problem error={logs.error} retry={() => logs.refetch()} />}
			<div class="table-wrap">
				<table>
					<thead>
						<tr>
							<th>{t('api.log.time')}</th>
							<th>{t('api.log.operator')}</th>
							<th>{t('api.log.credential')}</th>
							<th>{t('api.log.request')}</th>
							<th>{t('api.log.status')}</th>
							<th>{t('api.log.duration')}</th>
							<th>{t('api.log.rate')}</th>
						</tr>
					</thead>
					<tbody>
						{entries.map((entry) => (
							<tr key={entry.id}>
								<td>{when(entry.at)}</td>
								<td>{operatorName(directory.data, entry.operatorId)}</td>
								<td>{entry.hint}</td>
								<td>
									<code>
										{entry.method} {entry.path}
									</code>
								</td>
								<td>{entry.status}</td>
								<td>{entry.durationMs} ms</td>
								<td>{entry.rateLimited ? t('api.log.limited') : (entry.rateRemaining ?? '')}</td>
							</tr>
						))}
					</tbody>
				</table>
			</div>
			{logs.isSuccess && entries.length === 0 && <p class="muted">{t('api.log.empty')}</p>}
			{logs.hasNextPage && (
				<button type="button" disabled={logs.isFetchingNextPage} onClick={() => logs.fetchNextPage()}>
					{t('api.log.more')}
				</button>
			)}
		</>
	);
}
