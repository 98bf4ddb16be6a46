import type { DeliveryStatus } from '../data/email';
import { t } from '../i18n';

/**
 * Where a mail Parley sent stands, as a badge (green once the provider took it, red when it failed, amber
 * while it waits or when it was skipped), and the reason under it when it did not go. One badge for every
 * list of mails: Settings › E-mail's sent mail and a campaign's recipients.
 */
export function MailStatusBadge({ status, error }: { status: DeliveryStatus; error?: string | null }) {
	return (
		<>
			<span class={`mail-status ${status}`} data-status={status}>
				{t(`email.status.${status}`)}
			</span>
			{error && <div class="muted small">{error}</div>}
		</>
	);
}
