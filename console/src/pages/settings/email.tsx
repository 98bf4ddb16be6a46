import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Schemas } from '../../api/client';
import {
	useEmailSettings,
	useInboundAddressChanges,
	useInboundAddresses,
	useSaveEmailSettings,
} from '../../data/email';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { ReceivedMails, SentMails } from './email-mails';
import { FieldProblem, fieldProblems, invalid, SaveBar, Section, Switch } from './form';

type Settings = Schemas['EmailSettings'];

/** The form's fields: text as typed (empty clears), the delay in minutes as people think of it. */
interface Draft {
	senderName: string;
	senderAddress: string;
	replyDomain: string;
	continuationEnabled: boolean;
	delayMinutes: string;
}

const draftOf = (s: Settings): Draft => ({
	senderName: s.senderName ?? '',
	senderAddress: s.senderAddress ?? '',
	replyDomain: s.replyDomain ?? '',
	continuationEnabled: s.continuationEnabled,
	delayMinutes: String(s.continuationDelaySeconds / 60),
});

const orNull = (value: string) => value.trim() || null;

/**
 * Settings › E-mail (admins): whether mail can go out and why not, the sender, the reply domain and the
 * continuation of widget conversations by mail; the inbound addresses; what to set up in Cloudflare; and the
 * mails received and sent, with what became of each.
 */
export function EmailSettingsPage() {
	return (
		<div class="page settings-page email-settings">
			<header class="settings-header">
				<h1>{t('email.title')}</h1>
				<p class="muted">{t('email.intro')}</p>
			</header>
			<SendingForm />
			<InboundAddresses />
			<Section id="email-setup" title={t('email.setup')}>
				<p>
					{t('email.setup.text')}{' '}
					<a href="/docs" target="_blank" rel="noopener">
						{t('email.setup.link')}
					</a>
				</p>
			</Section>
			<ReceivedMails />
			<SentMails />
		</div>
	);
}

function SendingForm() {
	const settings = useEmailSettings();
	const save = useSaveEmailSettings();
	const [draft, setDraft] = useState<Draft | null>(null);
	const [saved, setSaved] = useState(false);
	useEffect(() => {
		if (settings.data && draft === null) setDraft(draftOf(settings.data));
	}, [settings.data]);
	const original = settings.data ? draftOf(settings.data) : null;
	const dirty = !!draft && !!original && JSON.stringify(draft) !== JSON.stringify(original);
	const submit = useSubmit(async () => {
		if (!draft) return;
		const answer = await save({
			senderName: orNull(draft.senderName),
			senderAddress: orNull(draft.senderAddress),
			replyDomain: orNull(draft.replyDomain),
			continuationEnabled: draft.continuationEnabled,
			continuationDelaySeconds: Math.round(Number(draft.delayMinutes) * 60),
		});
		setDraft(draftOf(answer));
		setSaved(true);
	});
	const problems = fieldProblems(submit.error);
	const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
		setSaved(false);
		setDraft((d) => (d ? { ...d, [key]: value } : d));
	};
	const sending = settings.data?.sending;
	const text = (id: string, key: 'senderName' | 'senderAddress' | 'replyDomain', type: string, hint?: string) => (
		<div class="field">
			<label for={id}>{t(`email.${key}`)}</label>
			<input
				id={id}
				type={type}
				value={draft?.[key] ?? ''}
				onInput={(e) => set(key, e.currentTarget.value)}
				{...invalid(id, problems.get(key))}
			/>
			{hint && <p class="muted small">{hint}</p>}
			<FieldProblem id={id} message={problems.get(key)} />
		</div>
	);
	return (
		<Section id="email-sending" title={t('email.sending')}>
			{settings.error && <Problem error={settings.error} retry={() => settings.refetch()} />}
			{sending && (
				<p class={`sending-state ${sending.ready ? 'ready' : 'not-ready'}`} role="status" data-testid="sending-state">
					{sending.ready
						? t('email.sending.ready', { sender: settings.data?.senderAddress ?? '' })
						: t('email.sending.notReady', { reason: sending.reason ?? t('email.sending.unknown') })}
				</p>
			)}
			{draft && (
				<form
					onSubmit={(event) => {
						event.preventDefault();
						void submit.submit();
					}}
				>
					<div class="grid-2">
						{text('email-sender-name', 'senderName', 'text', t('email.senderName.hint'))}
						{text('email-sender-address', 'senderAddress', 'email', t('email.senderAddress.hint'))}
						{text('email-reply-domain', 'replyDomain', 'text', t('email.replyDomain.hint'))}
					</div>
					<Switch
						id="email-continuation"
						label={t('email.continuation')}
						checked={draft.continuationEnabled}
						onChange={(on) => set('continuationEnabled', on)}
					/>
					<div class="field">
						<label for="email-delay">{t('email.delay')}</label>
						<input
							id="email-delay"
							type="number"
							min={0.5}
							max={10080}
							step="any"
							value={draft.delayMinutes}
							onInput={(e) => set('delayMinutes', e.currentTarget.value)}
							{...invalid('email-delay', problems.get('continuationDelaySeconds'))}
						/>
						<FieldProblem id="email-delay" message={problems.get('continuationDelaySeconds')} />
					</div>
					{settings.data?.linkOrigin && (
						<p class="muted small">{t('email.linkOrigin', { origin: settings.data.linkOrigin })}</p>
					)}
					<SaveBar
						dirty={dirty}
						busy={submit.busy}
						saved={saved}
						error={submit.error}
						onDiscard={() => original && setDraft(original)}
					/>
				</form>
			)}
		</Section>
	);
}

function InboundAddresses() {
	const addresses = useInboundAddresses();
	const { add, remove } = useInboundAddressChanges();
	const [address, setAddress] = useState('');
	const taken = add.error instanceof ApiError && add.error.status === 409;
	return (
		<Section id="email-addresses" title={t('email.addresses')} intro={t('email.addresses.intro')}>
			{addresses.error && <Problem error={addresses.error} retry={() => addresses.refetch()} />}
			{addresses.isSuccess && addresses.data.data.length === 0 && <p class="muted">{t('email.addresses.none')}</p>}
			<ul class="plain address-list">
				{addresses.data?.data.map((row) => (
					<li key={row.id} data-testid="inbound-address">
						<code>{row.address}</code>
						<button
							type="button"
							class="danger"
							disabled={remove.isPending}
							aria-label={t('email.addresses.removeOne', { address: row.address })}
							onClick={() =>
								confirm(t('email.addresses.removeConfirm', { address: row.address })) && remove.mutate(row.id)
							}
						>
							{t('email.addresses.remove')}
						</button>
					</li>
				))}
			</ul>
			{remove.error && <Problem error={remove.error} />}
			<form
				class="inline-form"
				onSubmit={(event) => {
					event.preventDefault();
					add.mutate(address.trim(), { onSuccess: () => setAddress('') });
				}}
			>
				<label for="email-new-address">{t('email.addresses.new')}</label>
				<input
					id="email-new-address"
					type="email"
					required
					placeholder="support@example.com"
					value={address}
					onInput={(e) => setAddress(e.currentTarget.value)}
					{...invalid('email-new-address', taken ? t('email.addresses.taken') : undefined)}
				/>
				<button type="submit" disabled={add.isPending}>
					{t('email.addresses.add')}
				</button>
			</form>
			{taken ? (
				<p class="field-problem" id="email-new-address-problem" role="alert">
					{t('email.addresses.taken')}
				</p>
			) : (
				add.error && <Problem error={add.error} />
			)}
		</Section>
	);
}
