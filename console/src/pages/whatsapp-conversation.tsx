/**
 * What a WhatsApp conversation shows beyond any other: each team message's delivery (ticks as in a messaging
 * app), the 24-hour window above the composer, and once it has closed, the template picker in the free
 * text's place.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Schemas } from '../api/client';
import {
	type MessageWhatsapp,
	sendWhatsappTemplate,
	useConversationTemplates,
	useConversationWindow,
} from '../data/whatsapp';
import { closedAtOf, SERVICE_WINDOW_MS, templatePreview, timeLeft, windowEnd } from '../data/whatsapp-window';
import { t, when } from '../i18n';
import { Problem } from '../ui/problem';

/** One tick sent, two delivered, two coloured read; a clock before Meta took it; a warning with Meta's reason. */
export function WhatsappState({ state }: { state: MessageWhatsapp }) {
	const marks: Record<MessageWhatsapp['status'], string> = {
		queued: '🕓',
		sending: '🕓',
		sent: '✓',
		delivered: '✓✓',
		read: '✓✓',
		failed: '⚠',
		skipped: '⚠',
	};
	const bad = state.status === 'failed' || state.status === 'skipped';
	return (
		<div
			class={`whatsapp-state small ${state.status}${bad ? ' failed' : ''}`}
			data-testid="whatsapp-state"
			data-status={state.status}
			title={t(`whatsapp.state.${state.status}`)}
		>
			<span class="ticks" aria-hidden="true">
				{marks[state.status]}
			</span>{' '}
			<span class={bad ? '' : 'visually-hidden'}>
				{t(`whatsapp.state.${state.status}`)}
				{state.error ? `: ${state.error}` : ''}
			</span>
		</div>
	);
}

/** Where a WhatsApp conversation's window stands, as the console knows it. */
export interface WindowState {
	/** The messages are loaded (or there are none): until then nothing is said or forced. */
	known: boolean;
	open: boolean;
	/** When it closes (ms), or null when no customer message is loaded. */
	endsAt: number | null;
	/** The room's 409 refusal of a reply the customer has not written after. */
	refusal: string | undefined;
	now: number;
}

/**
 * The window of a WhatsApp conversation, ticking every 30 s: as the server counts it (from Meta's timestamp of
 * the customer's last message, which a late webhook makes older than when Parley received it), read again
 * each time the customer writes; until that answer, from the messages loaded. Closed once it has passed or
 * the room refused a reply with 409, until the customer writes again. A workspace with no number connected
 * keeps no window: nothing is shown.
 */
export function useWhatsappWindow(
	conversationId: string,
	whatsapp: boolean,
	messages: ReadonlyArray<{ seq: number; authorKind: string; createdAt: string }>,
	refused: ReadonlyArray<{ status: number; at: number; reason: string }>,
	lastMessageSeq: number | undefined,
): WindowState {
	const [now, setNow] = useState(() => Date.now());
	useEffect(() => {
		if (!whatsapp) return;
		const timer = setInterval(() => setNow(Date.now()), 30_000);
		return () => clearInterval(timer);
	}, [whatsapp]);
	const lastCustomerSeq = lastSeqBy(messages, 'contact');
	const server = useConversationWindow(conversationId, whatsapp, lastCustomerSeq);
	const loaded = whatsapp ? windowEnd(messages) : null;
	const counted = server.data?.endsAt ? Date.parse(server.data.endsAt) : null;
	// The server's answer once it is about the customer's newest message; before, the later of the two.
	const endsAt = server.isSuccess && !server.isPlaceholderData ? counted : laterOf(counted, loaded);
	const lastContactAt = endsAt === null ? 0 : endsAt - SERVICE_WINDOW_MS;
	const refusal = whatsapp ? refused.filter((r) => r.status === 409 && r.at > lastContactAt).at(-1)?.reason : undefined;
	const kept = server.data?.enforced !== false;
	const known = whatsapp && kept && (messages.length > 0 || lastMessageSeq === 0);
	const open = refusal === undefined && endsAt !== null && Math.max(now, Date.now()) < endsAt;
	return { known, open, endsAt, refusal, now };
}

function lastSeqBy(messages: ReadonlyArray<{ seq: number; authorKind: string }>, authorKind: string): number {
	for (let i = messages.length - 1; i >= 0; i--)
		if (messages[i]?.authorKind === authorKind) return messages[i]?.seq ?? 0;
	return 0;
}

function laterOf(a: number | null, b: number | null): number | null {
	return a === null ? b : b === null ? a : Math.max(a, b);
}

/** Above the composer of a WhatsApp conversation: the time its window has left; once closed, the notice and the template picker. */
export function WhatsappWindow({ conversationId, state }: { conversationId: string; state: WindowState }) {
	const { endsAt, refusal } = state;
	if (state.open && endsAt !== null) {
		const left = timeLeft(endsAt - state.now);
		return (
			<p class="whatsapp-window open small" data-testid="whatsapp-window" role="status">
				{left.hours > 0 ? t('whatsapp.window.open', left) : t('whatsapp.window.openMinutes', left)}
			</p>
		);
	}
	const closedAt = closedAtOf(refusal) ?? (endsAt !== null ? new Date(endsAt).toISOString() : null);
	return (
		<div class="whatsapp-window closed" data-testid="whatsapp-window">
			<p class="notice" role="status">
				{t('whatsapp.window.closed')} {closedAt && t('whatsapp.window.closedAt', { when: when(closedAt) })}
			</p>
			<TemplatePicker conversationId={conversationId} />
		</div>
	);
}

/**
 * An approved template of the number the conversation is on (the one its customer last wrote to), its body
 * previewed and one input per variable (Liquid allowed). Anyone who may reply may pick one.
 */
function TemplatePicker({ conversationId }: { conversationId: string }) {
	const templates = useConversationTemplates(conversationId);
	const [key, setKey] = useState('');
	const [values, setValues] = useState<Record<string, string>>({});
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [sent, setSent] = useState(false);
	const list = templates.data?.data ?? [];
	const template = list.find((tpl) => `${tpl.name}|${tpl.language}` === key);
	const send = async () => {
		if (!template) return;
		setBusy(true);
		setError(null);
		setSent(false);
		try {
			const variables =
				template.parameterFormat === 'NAMED'
					? Object.fromEntries(template.variables.map((name) => [name, values[name] ?? '']))
					: template.variables.map((name) => values[name] ?? '');
			await sendWhatsappTemplate(conversationId, { name: template.name, language: template.language, variables });
			setSent(true);
			setValues({});
		} catch (caught) {
			setError(caught);
		} finally {
			setBusy(false);
		}
	};
	// A conversation no connected number can carry (no number, or none the customer wrote to among several).
	if (templates.error instanceof ApiError && templates.error.status === 422)
		return <p class="muted">{t('whatsapp.template.noNumber')}</p>;
	return (
		<form
			class="template-picker"
			aria-label={t('whatsapp.template.pick')}
			onSubmit={(event) => {
				event.preventDefault();
				void send();
			}}
		>
			{templates.error && <Problem error={templates.error} retry={() => templates.refetch()} />}
			{templates.isSuccess && list.length === 0 && <p class="muted">{t('whatsapp.template.none')}</p>}
			{list.length > 0 && (
				<div class="field">
					<label for={`template-${conversationId}`}>{t('whatsapp.template')}</label>
					<select
						id={`template-${conversationId}`}
						value={key}
						onChange={(e) => {
							setKey(e.currentTarget.value);
							setValues({});
							setSent(false);
						}}
					>
						<option value="">{t('whatsapp.template.pick')}</option>
						{list.map((tpl) => (
							<option key={`${tpl.name}|${tpl.language}`} value={`${tpl.name}|${tpl.language}`}>
								{tpl.name} ({tpl.language})
							</option>
						))}
					</select>
				</div>
			)}
			{template && (
				<>
					<div class="template-preview" data-testid="template-preview">
						<span class="muted small">{t('whatsapp.template.preview')}</span>
						<p>{templatePreview(template.body, values)}</p>
					</div>
					{template.variables.map((name) => (
						<div class="field" key={name}>
							<label for={`template-var-${name}`}>{t('whatsapp.template.variable', { name })}</label>
							<input
								id={`template-var-${name}`}
								value={values[name] ?? ''}
								placeholder={t('whatsapp.template.variableHint')}
								onInput={(e) => setValues({ ...values, [name]: e.currentTarget.value })}
							/>
						</div>
					))}
					<button type="submit" class="primary" disabled={busy}>
						{t('whatsapp.template.send')}
					</button>
				</>
			)}
			{sent && (
				<p class="muted small" role="status">
					{t('whatsapp.template.sent')}
				</p>
			)}
			{error !== null && <Problem error={error} />}
		</form>
	);
}

/**
 * Where a conversation came from, in its header: a Click-to-WhatsApp ad (its headline, linked to the ad),
 * or the widget visit a hand-off carried in (utm, the search ad's gclid), as the contact's origin lines say.
 */
export function ConversationOrigin({ origin }: { origin: Schemas['Origin'] }) {
	const ad = origin.adReferral;
	const parts = [
		origin.utmSource && `${origin.utmSource}${origin.utmMedium ? ` / ${origin.utmMedium}` : ''}`,
		origin.utmCampaign,
		origin.gclid && t('conversation.origin.search', { gclid: origin.gclid }),
		origin.fbclid && t('inbox.origin.social'),
	].filter(Boolean);
	if (!ad && !origin.ctwaClid && parts.length === 0) return null;
	return (
		<p class="conversation-origin small" data-testid="conversation-origin">
			<span class="muted">{t('conversation.origin')}: </span>
			{(ad || origin.ctwaClid) &&
				(ad?.headline ? t('whatsapp.origin.ad', { headline: ad.headline }) : t('whatsapp.origin.adNoHeadline'))}
			{ad?.sourceUrl && /^https?:\/\//.test(ad.sourceUrl) && (
				<>
					{' '}
					(
					<a href={ad.sourceUrl} target="_blank" rel="noreferrer noopener">
						{t('whatsapp.origin.source')}
					</a>
					)
				</>
			)}
			{(ad || origin.ctwaClid) && parts.length > 0 && ' · '}
			{parts.join(' · ')}
		</p>
	);
}
