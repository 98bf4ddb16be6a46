/**
 * What a conversation shows of mail: under a contact's message that came by mail, the quoted history and the
 * signature folded behind a toggle, the mail's formatted (HTML) view, "possibly forged" when its
 * authentication failed, and its original; machine mail (an auto-reply, a bounce) as a small line of the
 * thread, never as the customer's words; and where the mail carrying a team message stands.
 */
import { useMemo, useState } from 'preact/hooks';
import type { Schemas } from '../api/client';
import { type MessageMail, rawMailUrl, useInboundMail } from '../data/email';
import { t, when } from '../i18n';
import { Problem } from '../ui/problem';

type InboundMail = Schemas['InboundMail'];

/** The folds and views of a contact's message that a mail brought (its text, already on the bubble, is what they wrote). */
export function MailParts({ mail }: { mail: InboundMail }) {
	const [quoteOpen, setQuoteOpen] = useState(false);
	const [formatted, setFormatted] = useState(false);
	const detail = useInboundMail(mail.id, quoteOpen || formatted);
	const quoteId = `mail-quote-${mail.id}`;
	const data = detail.data;
	const folded = data ? [data.quote, data.signature].filter((part): part is string => !!part) : [];
	return (
		<div class="mail-parts">
			{mail.possiblyForged && (
				<p class="mail-forged" role="note">
					{t('mail.possiblyForged')}
				</p>
			)}
			<div class="mail-tools">
				<button
					type="button"
					aria-expanded={quoteOpen}
					aria-controls={quoteId}
					onClick={() => setQuoteOpen(!quoteOpen)}
				>
					{quoteOpen ? t('mail.hideQuoted') : t('mail.showQuoted')}
				</button>
				<button type="button" aria-pressed={formatted} onClick={() => setFormatted(!formatted)}>
					{t('mail.formatted')}
				</button>
				<a href={rawMailUrl(mail.id)} download={`${mail.id}.eml`}>
					{t('mail.viewOriginal')}
				</a>
			</div>
			{detail.error && <Problem error={detail.error} retry={() => detail.refetch()} />}
			{quoteOpen && (
				<div id={quoteId} class="mail-quote">
					{!data && <span class="muted">{t('common.loading')}</span>}
					{data && folded.length === 0 && <span class="muted">{t('mail.nothingQuoted')}</span>}
					{folded.map((part) => (
						<pre key={part}>{part}</pre>
					))}
				</div>
			)}
			{formatted &&
				data &&
				(data.html ? (
					<MailHtml html={data.html} remoteImages={data.remoteImages} withQuote={quoteOpen} />
				) : (
					<p class="muted">{t('mail.noHtml')}</p>
				))}
		</div>
	);
}

/**
 * The sanitized HTML in a frame sandboxed with nothing allowed but opening links in a new tab: no script runs
 * in it even if one slipped through, and it cannot reach the console. Remote images (held in
 * `data-remote-src` by the API) get their `src` only after "Load images", and go out with no referrer.
 */
function MailHtml({ html, remoteImages, withQuote }: { html: string; remoteImages: number; withQuote: boolean }) {
	const [images, setImages] = useState(false);
	const srcdoc = useMemo(() => mailDocument(html, { images, withQuote }), [html, images, withQuote]);
	return (
		<div class="mail-html">
			{remoteImages > 0 && !images && (
				<p class="muted small">
					{t('mail.imagesHeld', { n: remoteImages })}{' '}
					<button type="button" onClick={() => setImages(true)}>
						{t('mail.loadImages')}
					</button>
				</p>
			)}
			<iframe
				title={t('mail.formattedTitle')}
				sandbox="allow-popups allow-popups-to-escape-sandbox"
				referrerpolicy="no-referrer"
				srcdoc={srcdoc}
			/>
		</div>
	);
}

/** The frame's document: the mail's body, its quote cut unless shown, its remote images given their `src` once allowed. */
function mailDocument(html: string, options: { images: boolean; withQuote: boolean }): string {
	// An inert document: parsing runs nothing and loads nothing.
	const doc = new DOMParser().parseFromString(html, 'text/html');
	if (options.images)
		for (const image of doc.querySelectorAll('[data-remote-src]')) {
			image.setAttribute('src', image.getAttribute('data-remote-src') ?? '');
			image.removeAttribute('data-remote-src');
		}
	if (!options.withQuote) {
		for (const block of doc.querySelectorAll('[data-parley-quote="block"]')) block.remove();
		const divider = doc.querySelector('[data-parley-quote="from-here"]');
		if (divider) cutFrom(divider);
	}
	const images = options.images ? 'https: data:' : 'data:';
	const policy = `default-src 'none'; style-src 'unsafe-inline'; img-src ${images} ${location.origin}`;
	return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${policy}"><meta name="referrer" content="no-referrer"><base target="_blank"><style>body{font:14px/1.45 system-ui,sans-serif;margin:8px;overflow-wrap:anywhere}img{max-width:100%;height:auto}</style></head><body>${doc.body.innerHTML}</body></html>`;
}

/** Removes `node` and everything after it in document order: "all below this line is quote". */
function cutFrom(node: Element) {
	let current: Node | null = node;
	while (current && current.nodeName !== 'BODY') {
		while (current.nextSibling) current.nextSibling.remove();
		const parent: Node | null = current.parentNode;
		if (current === node) node.remove();
		current = parent;
	}
}

/** Machine mail of the conversation (an auto-reply, a bounce, bulk mail): a line of the thread, kept apart from what the customer said. */
export function MachineMailLine({ mail }: { mail: InboundMail }) {
	return (
		<div class="mail-system muted small" data-testid="machine-mail">
			<span>
				{t(`mail.kind.${mail.kind === 'message' ? 'ignored' : mail.kind}`)} ·{' '}
				{mail.envelopeFrom || t('mail.nullSender')}
				{mail.subject ? ` · ${mail.subject}` : ''} · {when(mail.receivedAt)}
			</span>{' '}
			<a href={rawMailUrl(mail.id)} download={`${mail.id}.eml`}>
				{t('mail.viewOriginal')}
			</a>
		</div>
	);
}

/** Where the mail carrying a team message stands: discreet when it went, plain when it did not. */
export function MailState({ state }: { state: MessageMail }) {
	const failed = state.status === 'failed' || state.status === 'skipped';
	return (
		<div class={`mail-state small${failed ? ' failed' : ' muted'}`}>
			{t(`mail.state.${state.status}`)}
			{state.error ? `: ${state.error}` : ''}
		</div>
	);
}
