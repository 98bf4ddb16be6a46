/**
 * A scenario's inbound webhooks, in its settings beside the canvas: each one's URL (copied with a button), on
 * or off, its secret rotated (shown once, with its copy button), deleted; a new one named below. Under the
 * secret shown, a signed call to paste in a terminal: the Standard Webhooks signature the API checks
 * (`v1,` + base64 of HMAC-SHA256 over `id.timestamp.body`, keyed by the secret's bytes), made by openssl.
 */
import { useState } from 'preact/hooks';
import { type ScenarioWebhook, useScenarioWebhookChanges, useScenarioWebhooks } from '../../data/scenario-webhooks';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { CopyButton, FieldProblem, fieldProblems, invalid, ShownOnce } from '../settings/form';

/** A shell snippet that POSTs `{"order": "A-1042"}` to `url`, signed with `secret`, as pasted into bash or zsh. */
export function signedExample(url: string, secret: string): string {
	return [
		`SECRET='${secret}'`,
		`BODY='{"order": "A-1042", "email": "ana@example.com"}'`,
		'ID="msg_$(date +%s%N)"; TS=$(date +%s)',
		`KEY=$(printf '%s' "\${SECRET#whsec_}" | base64 -d | od -An -tx1 | tr -d ' \\n')`,
		`SIG=$(printf '%s' "$ID.$TS.$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" -binary | base64)`,
		`curl -s -X POST '${url}' -H 'Content-Type: application/json' \\`,
		`  -H "webhook-id: $ID" -H "webhook-timestamp: $TS" -H "webhook-signature: v1,$SIG" -d "$BODY"`,
	].join('\n');
}

export function InboundWebhooks({ scenarioId }: { scenarioId: string }) {
	const webhooks = useScenarioWebhooks(scenarioId);
	const { create } = useScenarioWebhookChanges(scenarioId);
	const [shown, setShown] = useState<{ id: string; secret: string } | null>(null);
	const [name, setName] = useState('');
	const problems = fieldProblems(create.error);
	return (
		<section class="inbound-webhooks" aria-labelledby="inbound-webhooks-title">
			<h2 id="inbound-webhooks-title">{t('webhooksIn.title')}</h2>
			<p class="muted small">{t('webhooksIn.intro')}</p>
			{webhooks.error && <Problem error={webhooks.error} retry={() => webhooks.refetch()} />}
			{webhooks.data?.data.length === 0 && <p class="muted">{t('webhooksIn.none')}</p>}
			<ul class="plain">
				{webhooks.data?.data.map((webhook) => (
					<WebhookRow
						key={webhook.id}
						webhook={webhook}
						secret={shown?.id === webhook.id ? shown.secret : null}
						onSecret={(secret) => setShown(secret === null ? null : { id: webhook.id, secret })}
					/>
				))}
			</ul>
			<form
				noValidate
				onSubmit={(e) => {
					e.preventDefault();
					create.mutate(
						{ name },
						{
							onSuccess: (made) => {
								setShown({ id: made.id, secret: made.secret });
								setName('');
							},
						},
					);
				}}
			>
				<label for="inbound-webhook-name">{t('webhooksIn.name')}</label>
				<input
					id="inbound-webhook-name"
					value={name}
					onInput={(e) => setName(e.currentTarget.value)}
					{...invalid('inbound-webhook-name', problems.get('name'))}
				/>
				<FieldProblem id="inbound-webhook-name" message={problems.get('name')} />
				{create.error !== null && problems.size === 0 && <Problem error={create.error} />}
				<button type="submit" disabled={create.isPending}>
					{t('webhooksIn.create')}
				</button>
			</form>
		</section>
	);
}

function WebhookRow(props: { webhook: ScenarioWebhook; secret: string | null; onSecret(secret: string | null): void }) {
	const { webhook } = props;
	const { update, rotate, remove } = useScenarioWebhookChanges(webhook.scenarioId);
	const error = update.error ?? rotate.error ?? remove.error;
	const example = signedExample(webhook.url, props.secret ?? 'whsec_…');
	return (
		<li class="inbound-webhook" data-testid="inbound-webhook">
			<strong>{webhook.name}</strong>
			{!webhook.enabled && <span class="muted"> · {t('webhooksIn.disabled')}</span>}
			<div class="url-row">
				<code data-testid="inbound-webhook-url">{webhook.url}</code> <CopyButton text={webhook.url} />
			</div>
			<label class="inline">
				<input
					type="checkbox"
					checked={webhook.auth === 'open'}
					onChange={(e) =>
						update.mutate({ webhookId: webhook.id, body: { auth: e.currentTarget.checked ? 'open' : 'secret' } })
					}
				/>{' '}
				{t('webhooksIn.open')}
			</label>
			{props.secret && (
				<ShownOnce
					value={props.secret}
					note={t('webhooksIn.secretShownOnce')}
					testId="inbound-webhook-secret"
					onDone={() => props.onSecret(null)}
				/>
			)}
			{webhook.auth === 'secret' && (
				<details open={Boolean(props.secret)}>
					<summary>{t('webhooksIn.example')}</summary>
					<pre class="signed-example" data-testid="signed-example">
						{example}
					</pre>
					<CopyButton text={example} label={t('webhooksIn.copyExample')} />
				</details>
			)}
			<div class="actions">
				<button
					type="button"
					disabled={update.isPending}
					onClick={() => update.mutate({ webhookId: webhook.id, body: { enabled: !webhook.enabled } })}
				>
					{webhook.enabled ? t('webhooks.disable') : t('webhooks.enable')}
				</button>
				<button
					type="button"
					disabled={rotate.isPending}
					onClick={() =>
						confirm(t('webhooksIn.rotateConfirm')) &&
						rotate.mutate(webhook.id, { onSuccess: (answer) => props.onSecret(answer.secret) })
					}
				>
					{t('webhooksIn.rotate')}
				</button>
				<button
					type="button"
					class="danger"
					disabled={remove.isPending}
					onClick={() => confirm(t('webhooksIn.deleteConfirm')) && remove.mutate(webhook.id)}
				>
					{t('webhooksIn.delete')}
				</button>
			</div>
			{error && <Problem error={error} />}
		</li>
	);
}
