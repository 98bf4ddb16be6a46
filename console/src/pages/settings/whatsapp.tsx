import { useState } from 'preact/hooks';
import { ApiError, type Schemas } from '../../api/client';
import {
	useNumberTemplates,
	useWhatsappNumberChanges,
	useWhatsappNumbers,
	type WhatsappNumber,
} from '../../data/whatsapp';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { CopyButton, FieldProblem, fieldProblems, invalid, Section } from './form';

/** The form's fields as typed; a secret left empty while editing keeps the stored one. */
interface Draft {
	phoneNumberId: string;
	businessAccountId: string;
	accessToken: string;
	appSecret: string;
	displayPhoneNumber: string;
	graphVersion: string;
	messagesPerSecond: string;
}

const EMPTY: Draft = {
	phoneNumberId: '',
	businessAccountId: '',
	accessToken: '',
	appSecret: '',
	displayPhoneNumber: '',
	graphVersion: '',
	messagesPerSecond: '',
};

const draftOf = (n: WhatsappNumber): Draft => ({
	...EMPTY,
	phoneNumberId: n.phoneNumberId,
	businessAccountId: n.businessAccountId,
	displayPhoneNumber: n.displayPhoneNumber ?? '',
	graphVersion: n.graphVersion,
	messagesPerSecond: String(n.messagesPerSecond),
});

/** What the API shows once: a number's callback URL and verify token, right after connecting or rotating. */
interface Revealed {
	webhookUrl: string;
	verifyToken: string;
}

const label = (n: WhatsappNumber) => n.displayPhoneNumber ?? n.phoneNumberId;

/**
 * Settings › WhatsApp (admins): the connected numbers, connecting one (then its callback URL and verify token,
 * shown once, to enter at Meta), replacing a number's token or secret (never shown), a new verify token, and
 * disconnecting.
 */
export function WhatsappSettingsPage() {
	const numbers = useWhatsappNumbers();
	const { rotate, disconnect } = useWhatsappNumberChanges();
	const [revealed, setRevealed] = useState<Revealed | null>(null);
	const [editing, setEditing] = useState<string | null>(null);
	const reveal = (answer: Revealed) => setRevealed({ webhookUrl: answer.webhookUrl, verifyToken: answer.verifyToken });
	return (
		<div class="page settings-page whatsapp-settings">
			<header class="settings-header">
				<h1>{t('whatsapp.title')}</h1>
				<p class="muted">{t('whatsapp.intro')}</p>
			</header>
			{revealed && <VerifyTokenOnce revealed={revealed} onDone={() => setRevealed(null)} />}
			<Section id="whatsapp-numbers" title={t('whatsapp.numbers')}>
				{numbers.error && <Problem error={numbers.error} retry={() => numbers.refetch()} />}
				{numbers.isSuccess && numbers.data.data.length === 0 && <p class="muted">{t('whatsapp.numbers.none')}</p>}
				<ul class="plain whatsapp-numbers">
					{numbers.data?.data.map((n) => (
						<li key={n.id} data-testid="whatsapp-number">
							<div class="whatsapp-number-row">
								<div>
									<strong>{label(n)}</strong> <code class="small">{n.phoneNumberId}</code>
									<div class="muted small">
										{t('whatsapp.number.pace', { n: n.messagesPerSecond, version: n.graphVersion })}
									</div>
								</div>
								<div class="actions">
									<button
										type="button"
										aria-label={t('whatsapp.number.editOne', { number: label(n) })}
										onClick={() => setEditing(editing === n.id ? null : n.id)}
									>
										{t('whatsapp.number.edit')}
									</button>
									<button
										type="button"
										disabled={rotate.isPending}
										onClick={() =>
											confirm(t('whatsapp.number.rotateConfirm', { number: label(n) })) &&
											rotate.mutate(n.id, { onSuccess: reveal })
										}
									>
										{t('whatsapp.number.rotate')}
									</button>
									<button
										type="button"
										class="danger"
										disabled={disconnect.isPending}
										aria-label={t('whatsapp.number.disconnectOne', { number: label(n) })}
										onClick={() =>
											confirm(t('whatsapp.number.disconnectConfirm', { number: label(n) })) && disconnect.mutate(n.id)
										}
									>
										{t('whatsapp.number.disconnect')}
									</button>
								</div>
							</div>
							{editing === n.id && <NumberForm number={n} onDone={() => setEditing(null)} />}
							<NumberTemplates numberId={n.id} />
						</li>
					))}
				</ul>
				{rotate.error && <Problem error={rotate.error} />}
				{disconnect.error && <Problem error={disconnect.error} />}
			</Section>
			<Section id="whatsapp-connect" title={t('whatsapp.connect')}>
				<NumberForm onConnected={reveal} />
			</Section>
		</div>
	);
}

function VerifyTokenOnce({ revealed, onDone }: { revealed: Revealed; onDone: () => void }) {
	return (
		<div class="shown-once" role="status" data-testid="whatsapp-setup">
			<p class="notice">{t('whatsapp.setup.once')}</p>
			<dl class="whatsapp-setup">
				<dt>{t('whatsapp.setup.webhookUrl')}</dt>
				<dd>
					<code data-testid="whatsapp-webhook-url">{revealed.webhookUrl}</code>{' '}
					<CopyButton text={revealed.webhookUrl} label={t('whatsapp.setup.copyUrl')} />
				</dd>
				<dt>{t('whatsapp.setup.verifyToken')}</dt>
				<dd>
					<code class="token" data-testid="whatsapp-verify-token">
						{revealed.verifyToken}
					</code>{' '}
					<CopyButton text={revealed.verifyToken} label={t('whatsapp.setup.copyToken')} />
				</dd>
			</dl>
			<div class="actions">
				<button type="button" onClick={onDone}>
					{t('settings.done')}
				</button>
			</div>
		</div>
	);
}

/** The connect form, or (given `number`) the edit form of a connected one. */
function NumberForm(props: { number?: WhatsappNumber; onConnected?: (answer: Revealed) => void; onDone?: () => void }) {
	const { connect, update } = useWhatsappNumberChanges();
	const editing = props.number;
	const [draft, setDraft] = useState<Draft>(editing ? draftOf(editing) : EMPTY);
	const submit = useSubmit(async () => {
		const advanced = {
			...(draft.graphVersion.trim() ? { graphVersion: draft.graphVersion.trim() } : {}),
			...(draft.messagesPerSecond.trim() ? { messagesPerSecond: Number(draft.messagesPerSecond) } : {}),
		};
		if (editing) {
			const body: Schemas['WhatsappNumberChanges'] = {
				businessAccountId: draft.businessAccountId.trim(),
				displayPhoneNumber: draft.displayPhoneNumber.trim() || null,
				...(draft.accessToken ? { accessToken: draft.accessToken } : {}),
				...(draft.appSecret ? { appSecret: draft.appSecret } : {}),
				...advanced,
			};
			await update.mutateAsync({ id: editing.id, body });
			props.onDone?.();
			return;
		}
		const answer = await connect.mutateAsync({
			phoneNumberId: draft.phoneNumberId.trim(),
			businessAccountId: draft.businessAccountId.trim(),
			accessToken: draft.accessToken,
			appSecret: draft.appSecret,
			displayPhoneNumber: draft.displayPhoneNumber.trim() || null,
			...advanced,
		});
		setDraft(EMPTY);
		props.onConnected?.(answer);
	});
	const problems = fieldProblems(submit.error);
	// A phone number id another workspace (or this one) connected: the API's 409 belongs to that field.
	if (submit.error instanceof ApiError && submit.error.status === 409)
		problems.set('phoneNumberId', submit.error.message);
	const shownAtFields = problems.size > 0;
	const prefix = editing ? `whatsapp-${editing.id}` : 'whatsapp-new';
	const field = (key: keyof Draft, type: string, hint?: string, required = !editing) => {
		const id = `${prefix}-${key}`;
		return (
			<div class="field">
				<label for={id}>{t(`whatsapp.field.${key}`)}</label>
				<input
					id={id}
					type={type}
					required={required}
					autoComplete="off"
					value={draft[key]}
					onInput={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}
					{...invalid(id, problems.get(key))}
				/>
				{hint && <p class="muted small">{hint}</p>}
				<FieldProblem id={id} message={problems.get(key)} />
			</div>
		);
	};
	return (
		<form
			class="whatsapp-number-form"
			onSubmit={(event) => {
				event.preventDefault();
				void submit.submit();
			}}
		>
			<div class="grid-2">
				{!editing && field('phoneNumberId', 'text', t('whatsapp.field.phoneNumberId.hint'))}
				{field('businessAccountId', 'text', undefined, true)}
				{field(
					'accessToken',
					'password',
					editing ? t('whatsapp.field.accessToken.keep') : t('whatsapp.field.accessToken.hint'),
				)}
				{field(
					'appSecret',
					'password',
					editing ? t('whatsapp.field.appSecret.keep') : t('whatsapp.field.appSecret.hint'),
				)}
				{field('displayPhoneNumber', 'text', undefined, false)}
			</div>
			<details class="whatsapp-advanced">
				<summary>{t('whatsapp.field.advanced')}</summary>
				<div class="grid-2">
					{field('graphVersion', 'text', undefined, false)}
					{field('messagesPerSecond', 'number', undefined, false)}
				</div>
			</details>
			{submit.error !== null && !shownAtFields && <Problem error={submit.error} />}
			<div class="save-bar">
				{editing && (
					<button type="button" onClick={props.onDone}>
						{t('whatsapp.cancel')}
					</button>
				)}
				<button type="submit" class="primary" disabled={submit.busy}>
					{editing ? t('whatsapp.save') : t('whatsapp.connect.submit')}
				</button>
			</div>
		</form>
	);
}

/** A number's approved templates (what campaigns and closed windows may send), read when opened. */
function NumberTemplates({ numberId }: { numberId: string }) {
	const [open, setOpen] = useState(false);
	const templates = useNumberTemplates(open ? numberId : '');
	return (
		<details onToggle={(e) => setOpen(e.currentTarget.open)}>
			<summary>{t('numberTemplates.show')}</summary>
			{templates.error && <Problem error={templates.error} retry={() => templates.refetch()} />}
			{templates.data?.data.length === 0 && <p class="muted">{t('numberTemplates.none')}</p>}
			<ul class="plain">
				{templates.data?.data.map((tpl) => (
					<li key={`${tpl.name}|${tpl.language}`}>
						<strong>{tpl.name}</strong>{' '}
						<span class="muted small">{[tpl.language, tpl.category].filter(Boolean).join(' · ')}</span>
						<div class="small">{tpl.body}</div>
					</li>
				))}
			</ul>
		</details>
	);
}
