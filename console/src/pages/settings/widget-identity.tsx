import { useState } from 'preact/hooks';
import { useDisableIdentitySecret, useGenerateIdentitySecret } from '../../data/widget';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { Section, ShownOnce } from './form';

/**
 * Settings › Widget › Identity verification: a secret the site's backend signs visitors' identities with
 * (HS256 JWT). Generating one turns verification on; generating again rotates it (the old one stops at once);
 * turning it off stores every identify as unverified. The API never shows a secret twice, nor whether one is
 * set: the page says what it did.
 */
export function IdentityVerification() {
	const [secret, setSecret] = useState<string | null>(null);
	const [outcome, setOutcome] = useState<string | null>(null);
	const generate = useGenerateIdentitySecret((answer) => {
		setSecret(answer.secret);
		setOutcome(t('widget.identity.on', { version: answer.version }));
	});
	const disable = useDisableIdentitySecret(() => {
		setSecret(null);
		setOutcome(t('widget.identity.off'));
	});
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
			{outcome && !secret && (
				<p class="muted" role="status">
					{outcome}
				</p>
			)}
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
					disabled={busy}
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
