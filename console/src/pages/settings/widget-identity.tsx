import { useState } from 'preact/hooks';
import { useDisableIdentitySecret, useGenerateIdentitySecret, useIdentityVerification } from '../../data/widget';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { Section, ShownOnce } from './form';

/**
 * Settings › Widget › Identity verification: a secret the site's backend signs visitors' identities with
 * (HS256 JWT). Generating one turns verification on; generating again rotates it (the old one stops at once);
 * turning it off stores every identify as unverified. The API never shows a secret twice: the page says
 * whether one is set (and its version), and shows a new one once.
 */
export function IdentityVerification() {
	const [secret, setSecret] = useState<string | null>(null);
	const state = useIdentityVerification();
	const generate = useGenerateIdentitySecret((answer) => setSecret(answer.secret));
	const disable = useDisableIdentitySecret(() => setSecret(null));
	const busy = generate.isPending || disable.isPending;
	return (
		<Section id="identity" title={t('widget.identity')} intro={t('widget.identity.intro')}>
			{secret && (
				<ShownOnce
					value={secret}
					note={t('widget.identity.shownOnce')}
					testId="identity-secret"
					onDone={() => setSecret(null)}
				/>
			)}
			{state.data && (
				<p class="muted" role="status" data-testid="identity-state">
					{state.data.enabled
						? t('widget.identity.on', { version: state.data.version ?? '' })
						: t('widget.identity.off')}
				</p>
			)}
			{state.error && <Problem error={state.error} retry={() => state.refetch()} />}
			<div class="actions">
				<button
					type="button"
					disabled={busy}
					onClick={() => {
						if (confirm(t('widget.identity.confirmGenerate'))) generate.mutate();
					}}
				>
					{t('widget.identity.generate')}
				</button>
				<button
					type="button"
					class="danger"
					disabled={busy || state.data?.enabled === false}
					onClick={() => {
						if (confirm(t('widget.identity.confirmOff'))) disable.mutate();
					}}
				>
					{t('widget.identity.disable')}
				</button>
			</div>
			{generate.error && <Problem error={generate.error} />}
			{disable.error && <Problem error={disable.error} />}
		</Section>
	);
}
