import { ApiError } from '../api/client';
import { t } from '../i18n';

/** An error shown where it happened, with the API's own message (`role=alert`: read out when it appears). */
export function Problem({ error, retry }: { error: unknown; retry?: () => void }) {
	const message =
		error instanceof ApiError && error.status === 0
			? t('common.offline')
			: t('common.error', { message: error instanceof Error ? error.message : String(error) });
	return (
		<div class="error" role="alert">
			{message}{' '}
			{retry && (
				<button type="button" onClick={retry}>
					{t('common.retry')}
				</button>
			)}
		</div>
	);
}
