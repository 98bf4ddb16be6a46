import { Fragment } from 'preact';
import { Link } from 'wouter-preact';
import { hasPermission, type Permission } from '../../../src/model/permissions';
import type { Schemas } from '../api/client';
import { loadContact, useContact, useRefreshContact, useSaveContact, useShowContact } from '../data/contacts';
import { useContactConversations } from '../data/conversations';
import { useContactDeals } from '../data/crm';
import type { ConsoleSession } from '../data/session';
import { useDirectory } from '../data/workspace';
import { t, when } from '../i18n';
import { useShownVersion } from '../ui/changed-elsewhere';
import { Editable } from '../ui/editable';
import { Problem } from '../ui/problem';
import { TagEditor } from '../ui/tag-editor';
import { customInputType, customValue } from './records/custom-value';

type Contact = Schemas['ContactRecord'];
type Origin = Contact['firstOrigin'];

/**
 * The contact beside a conversation (and on its own page): what it said about itself kept apart from what a
 * site verified, its tags and custom fields (edited in place), where it came from, its other conversations
 * and its deals. Each edit applies to the version shown; one made over someone else's change since shows the
 * changed-elsewhere notice instead of undoing it.
 */
export function ContactPanel(props: {
	contactId: string;
	session: ConsoleSession;
	conversationId?: string;
	onClose?(): void;
}) {
	const { contactId, conversationId, session } = props;
	const directory = useDirectory();
	const can = (permission: Permission) => hasPermission(session.permissions, permission);
	const contact = useContact(contactId);
	const version = useShownVersion(contact.data, () => loadContact(contactId), useShowContact(contactId));
	const refreshContact = useRefreshContact(contactId);
	const others = useContactConversations(contactId);
	const deals = useContactDeals(contactId, Boolean(can('crm:access')));
	const saveContact = useSaveContact(contactId);
	const save = async (body: Schemas['ContactChanges']) => {
		await saveContact.mutateAsync({ body, etag: version.etag });
	};
	const data = contact.data;
	const readOnly = !can('contacts:write');
	const fields = directory.data?.customFields.filter((f) => f.entity === 'contact') ?? [];

	return (
		<aside class="contact-panel" aria-label={t('contact.panel')}>
			{props.onClose && (
				<button type="button" class="close" onClick={props.onClose} aria-label={t('contact.closePanel')}>
					×
				</button>
			)}
			{contact.error && <Problem error={contact.error} retry={() => contact.refetch()} />}
			{data && (
				<Fragment key={version.generation}>
					<h3>
						{data.name ?? t('contact.anonymous', { id: data.id.slice(-5) })}
						{data.verified && <span class="chip verified">{t('contact.verified')}</span>}
					</h3>
					<Editable
						label={t('contact.name')}
						value={data.name}
						disabled={readOnly}
						problem={version.problem}
						onSave={(v) => save({ name: v || null })}
					/>
					<Editable
						label={t('contact.email')}
						type="email"
						value={data.email}
						disabled={readOnly}
						problem={version.problem}
						onSave={(v) => save({ email: v || null })}
					/>
					<Editable
						label={t('contact.phone')}
						type="tel"
						value={data.phone}
						disabled={readOnly}
						problem={version.problem}
						onSave={(v) => save({ phone: v || null })}
					/>
					{(data.claimedEmail || data.claimedPhone) && (
						<p class="muted small">
							{t('contact.claimed', { what: [data.claimedEmail, data.claimedPhone].filter(Boolean).join(', ') })}
						</p>
					)}
					<TagEditor
						label={t('contact.tags')}
						tags={data.tags}
						path={(name) => ({ kind: 'contact', id: contactId, name })}
						onChanged={refreshContact}
					/>
					{fields.length > 0 && <h4>{t('contact.customFields')}</h4>}
					{fields.map((field) => (
						<Editable
							key={field.key}
							label={field.label}
							value={data.customFields[field.key] == null ? null : String(data.customFields[field.key])}
							type={customInputType(field.type)}
							options={field.type === 'boolean' ? ['true', 'false'] : field.options}
							disabled={readOnly}
							problem={version.problem}
							onSave={(v) => save({ customFields: { [field.key]: customValue(field.type, v) } })}
						/>
					))}
					<h4>{t('contact.origin')}</h4>
					<OriginLine label={t('contact.firstOrigin')} origin={data.firstOrigin} />
					<OriginLine label={t('contact.lastOrigin')} origin={data.lastOrigin} />
					{!data.firstOrigin && !data.lastOrigin && <p class="small muted">{t('contact.noOrigin')}</p>}
				</Fragment>
			)}
			<h4>{t('contact.conversations')}</h4>
			<ul class="plain">
				{others.data?.data
					.filter((c) => c.id !== conversationId)
					.map((c) => (
						<li key={c.id}>
							<Link href={`/conversations/${c.id}`}>
								{when(c.lastActivityAt)} · {t(`inbox.status.${c.status}`)}
							</Link>
							{c.lastMessage && <div class="muted small ellipsis">{c.lastMessage.text}</div>}
						</li>
					))}
				{others.data && others.data.data.filter((c) => c.id !== conversationId).length === 0 && (
					<li class="muted">{t('contact.noOtherConversations')}</li>
				)}
			</ul>
			{can('crm:access') && (
				<>
					<h4>{t('contact.deals')}</h4>
					{deals.error && <Problem error={deals.error} />}
					<ul class="plain">
						{deals.data?.data.map((deal) => (
							<li key={deal.id}>
								<Link href={`/deals?deal=${deal.id}`}>{deal.name}</Link>
								<span class="muted small">
									{' '}
									· {deal.stage.name} · {t(`deal.status.${deal.status}` as 'deal.status.open')}
								</span>
							</li>
						))}
						{deals.data?.data.length === 0 && <li class="muted">{t('contact.noDeals')}</li>}
					</ul>
					<Link href={`/deals?new=1&contact=${contactId}`}>{t('deals.new')}</Link>
				</>
			)}
		</aside>
	);
}

function OriginLine({ label, origin }: { label: string; origin: Origin }) {
	if (!origin) return null;
	const o = origin as Record<string, string | null>;
	const parts = [
		// A Click-to-WhatsApp ad's touch: its headline, as the conversation's origin line says it.
		o.ctwaClid &&
			(o.adHeadline ? t('whatsapp.origin.ad', { headline: o.adHeadline }) : t('whatsapp.origin.adNoHeadline')),
		o.utmSource && `${o.utmSource}${o.utmMedium ? ` / ${o.utmMedium}` : ''}`,
		o.utmCampaign,
		o.gclid && t('inbox.origin.search'),
		o.fbclid && t('inbox.origin.social'),
		o.referrer && !o.utmSource ? o.referrer : null,
	].filter(Boolean);
	return (
		<p class="small">
			<span class="muted">{label}: </span>
			{parts.length ? parts.join(' · ') : t('contact.direct')}
		</p>
	);
}
