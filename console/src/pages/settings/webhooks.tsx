import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { useCreateWebhook, useWebhookChanges, useWebhooks } from '../../data/webhooks';
import { t, when } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { FieldProblem, fieldProblems, invalid, Section, ShownOnce } from './form';
import { Deliveries } from './webhook-deliveries';
import { EventChoice, type Selection } from './webhook-events';

type Endpoint = Schemas['WebhookEndpoint'];

/**
 * Settings › Integrations › Webhooks (admins): the URLs the workspace's events are POSTed to, signed
 * (Standard Webhooks). Create one (its secret shown once), pause or resume it, rotate its secret (shown once;
 * the old one keeps signing for a day), delete it, and see its deliveries with Re-send.
 */
export function WebhooksPage() {
	const endpoints = useWebhooks();
	const [secret, setSecret] = useState<string | null>(null);
	return (
		<div class="page settings-page">
			<header class="settings-header">
				<h1>{t('webhooks.title')}</h1>
				<p class="muted">{t('webhooks.intro')}</p>
			</header>
			{secret && (
				<ShownOnce
					value={secret}
					note={t('webhooks.secretShownOnce')}
					testId="webhook-secret"
					onDone={() => setSecret(null)}
				/>
			)}
			<Section id="endpoints" title={t('webhooks.endpoints')}>
				{endpoints.error && <Problem error={endpoints.error} retry={() => endpoints.refetch()} />}
				{endpoints.isSuccess && endpoints.data.data.length === 0 && <p class="muted">{t('webhooks.none')}</p>}
				<ul class="endpoint-list">
					{endpoints.data?.data.map((endpoint) => (
						<EndpointRow key={endpoint.id} endpoint={endpoint} onSecret={setSecret} />
					))}
				</ul>
			</Section>
			<NewEndpoint onSecret={setSecret} />
		</div>
	);
}

function NewEndpoint({ onSecret }: { onSecret: (secret: string) => void }) {
	const createEndpoint = useCreateWebhook();
	const [url, setUrl] = useState('');
	const [description, setDescription] = useState('');
	const [events, setEvents] = useState<Selection[]>(['conversation.created', 'message.created']);
	const create = useSubmit(async () => {
		const created = await createEndpoint({ url, description, events });
		onSecret(created.secret);
		setUrl('');
		setDescription('');
	});
	const problems = fieldProblems(create.error);
	return (
		<Section id="new-endpoint" title={t('webhooks.create')} intro={t('webhooks.create.intro')}>
			<form
				onSubmit={(event) => {
					event.preventDefault();
					void create.submit();
				}}
			>
				<div class="grid-2">
					<div class="field">
						<label for="endpoint-url">{t('webhooks.url')}</label>
						<input
							id="endpoint-url"
							type="url"
							required
							placeholder="https://example.com/parley-events"
							value={url}
							onInput={(e) => setUrl(e.currentTarget.value)}
							{...invalid('endpoint-url', problems.get('url'))}
						/>
						<FieldProblem id="endpoint-url" message={problems.get('url')} />
					</div>
					<div class="field">
						<label for="endpoint-description">{t('webhooks.description')}</label>
						<input
							id="endpoint-description"
							maxLength={200}
							value={description}
							onInput={(e) => setDescription(e.currentTarget.value)}
						/>
					</div>
				</div>
				<EventChoice value={events} onChange={setEvents} />
				<FieldProblem id="endpoint-events" message={problems.get('events')} />
				{create.error !== null && <Problem error={create.error} />}
				<button type="submit" class="primary" disabled={create.busy || events.length === 0}>
					{t('webhooks.create.submit')}
				</button>
			</form>
		</Section>
	);
}

function EndpointRow({ endpoint, onSecret }: { endpoint: Endpoint; onSecret: (secret: string) => void }) {
	const [open, setOpen] = useState(false);
	const { toggle, rotate, remove } = useWebhookChanges(endpoint.id, onSecret);
	const error = toggle.error ?? rotate.error ?? remove.error;
	const panel = `endpoint-${endpoint.id}-deliveries`;
	const state = endpoint.enabled ? (endpoint.failingSince ? 'failing' : 'enabled') : 'disabled';
	return (
		<li class="endpoint" data-testid="endpoint">
			<div class="member-row">
				<div class="who">
					<strong class="url">{endpoint.url}</strong>
					{endpoint.description && <div>{endpoint.description}</div>}
					<div class="muted small">
						{endpoint.events.includes('*') ? t('webhooks.events.all') : endpoint.events.join(', ')}
					</div>
					{endpoint.disabledReason && <div class="field-problem">{endpoint.disabledReason}</div>}
					{endpoint.failingSince && (
						<div class="field-problem">{t('webhooks.failingSince', { at: when(endpoint.failingSince) })}</div>
					)}
				</div>
				<span class={`status ${state}`}>{t(`webhooks.state.${state}`)}</span>
				<div class="actions">
					<button type="button" aria-expanded={open} aria-controls={panel} onClick={() => setOpen(!open)}>
						{t('webhooks.deliveries')}
					</button>
					<button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate(!endpoint.enabled)}>
						{endpoint.enabled ? t('webhooks.disable') : t('webhooks.enable')}
					</button>
					<button
						type="button"
						disabled={rotate.isPending}
						onClick={() => confirm(t('webhooks.rotateConfirm')) && rotate.mutate()}
					>
						{t('webhooks.rotate')}
					</button>
					<button
						type="button"
						class="danger"
						disabled={remove.isPending}
						onClick={() => confirm(t('webhooks.deleteConfirm', { url: endpoint.url })) && remove.mutate()}
					>
						{t('webhooks.delete')}
					</button>
				</div>
			</div>
			{error && <Problem error={error} />}
			{open && (
				<div id={panel}>
					<Deliveries endpointId={endpoint.id} />
				</div>
			)}
		</li>
	);
}
