/**
 * A WhatsApp message as Parley posts it: what the customer's message says in text (every type has one, so
 * history, notifications and every consumer stay text-only), the media to fetch if any, the answer it gives
 * to buttons, and its ad referral. Pure: the domain fetches the media, finds the contact and posts.
 * Shapes: WHATSAPP-REF §2 (Meta's messages webhook reference).
 */
import { WHATSAPP_LIMITS, type WhatsappReferral } from '../../model/whatsapp';

/** The fields of a webhook message the mapping reads (the domain's zod schema gives more). */
export interface MetaMessage {
	from: string;
	id: string;
	timestamp: string;
	type: string;
	text?: { body: string };
	image?: MetaMedia;
	video?: MetaMedia;
	audio?: MetaMedia;
	document?: MetaMedia;
	sticker?: MetaMedia;
	location?: { latitude: number; longitude: number; name?: string; address?: string; url?: string };
	contacts?: {
		name?: { formatted_name?: string };
		phones?: { phone?: string }[];
		emails?: { email?: string }[];
	}[];
	reaction?: { message_id?: string; emoji?: string };
	interactive?: {
		type: string;
		button_reply?: { id: string; title: string };
		list_reply?: { id: string; title: string; description?: string };
	};
	button?: { payload?: string; text?: string };
	unsupported?: { type?: string };
	referral?: {
		source_url?: string;
		source_id?: string;
		source_type?: string;
		headline?: string;
		body?: string;
		media_type?: string;
		ctwa_clid?: string;
	};
}

export interface MetaMedia {
	id: string;
	mime_type?: string;
	caption?: string;
	filename?: string;
	voice?: boolean;
	animated?: boolean;
}

export const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export type InboundContent =
	/** Plain text (a text message, a location, contact cards, a reaction, something unsupported). */
	| { kind: 'text'; text: string }
	/** A file to fetch by Meta's media id; `text` is what the message says besides it (its caption, or its kind). */
	| { kind: 'media'; mediaType: MediaType; media: MetaMedia; text: string }
	/**
	 * A tap on buttons Parley sent (a reply button, a list row, a template's quick reply): `id` is what Parley
	 * gave the button (its label), `title` what the customer saw. The domain picks the answer the bot waits for.
	 */
	| { kind: 'reply'; id: string; title: string; text: string };

/** What Meta's media types are called in a message, when the caption says nothing. */
const MEDIA_LABEL: Record<MediaType, string> = {
	image: 'Photo',
	video: 'Video',
	audio: 'Audio',
	document: 'Document',
	sticker: 'Sticker',
};

function mediaLabel(type: MediaType, media: MetaMedia): string {
	if (type === 'audio' && media.voice) return 'Voice message';
	if (type === 'sticker' && media.animated) return 'Animated sticker';
	return MEDIA_LABEL[type];
}

function location(loc: NonNullable<MetaMessage['location']>): string {
	const place = [loc.name, loc.address].filter(Boolean).join(', ');
	const at = `${loc.latitude},${loc.longitude}`;
	const lines = [`📍 Location${place ? `: ${place}` : ''}`, `https://maps.google.com/?q=${at}`];
	if (loc.url) lines.push(loc.url);
	return lines.join('\n');
}

function contactCards(cards: NonNullable<MetaMessage['contacts']>): string {
	return cards
		.map((card) => {
			const details = [...(card.phones ?? []).map((p) => p.phone), ...(card.emails ?? []).map((e) => e.email)].filter(
				(value): value is string => Boolean(value),
			);
			const name = card.name?.formatted_name || 'Contact';
			return `👤 ${name}${details.length > 0 ? `: ${details.join(', ')}` : ''}`;
		})
		.join('\n');
}

/** What a message of a type Parley does not show says, so the team knows something came. */
export function unsupportedText(type: string): string {
	return `[WhatsApp message of a kind Parley cannot show: ${type}. Open WhatsApp on the phone to see it.]`;
}

/** The content of one webhook message (see the module's comment). */
export function inboundContent(message: MetaMessage): InboundContent {
	const type = message.type;
	if (type === 'text' && message.text) return { kind: 'text', text: message.text.body };
	if ((MEDIA_TYPES as readonly string[]).includes(type)) {
		const mediaType = type as MediaType;
		const media = message[mediaType];
		if (media) {
			const label = media.filename
				? `${mediaLabel(mediaType, media)}: ${media.filename}`
				: mediaLabel(mediaType, media);
			return { kind: 'media', mediaType, media, text: media.caption?.trim() || `[${label}]` };
		}
	}
	if (type === 'location' && message.location) return { kind: 'text', text: location(message.location) };
	if (type === 'contacts' && message.contacts && message.contacts.length > 0) {
		return { kind: 'text', text: contactCards(message.contacts) };
	}
	if (type === 'reaction' && message.reaction) {
		const emoji = message.reaction.emoji;
		// Meta omits the emoji (or sends "") when the customer takes a reaction back.
		return { kind: 'text', text: emoji ? `Reacted ${emoji} to a message` : 'Removed a reaction' };
	}
	if (type === 'interactive' && message.interactive) {
		const reply = message.interactive.button_reply ?? message.interactive.list_reply;
		if (reply) return { kind: 'reply', id: reply.id, title: reply.title, text: reply.title || reply.id };
	}
	// A tap on a template's quick-reply button: the payload is what the template was sent with, else the label.
	if (type === 'button' && message.button) {
		const title = message.button.text ?? message.button.payload ?? '';
		return { kind: 'reply', id: message.button.payload ?? title, title, text: title };
	}
	const subtype = type === 'unsupported' || type === 'unknown' ? message.unsupported?.type : undefined;
	return { kind: 'text', text: unsupportedText(subtype ? `${type} (${subtype})` : type) };
}

/**
 * The answer a tap gives to the team's latest buttons (`labels`): the label Parley put in the button's id,
 * else the one whose (possibly shortened) title the customer saw; null when no label fits (the title is
 * then posted as written).
 */
export function chosenButton(reply: { id: string; title: string }, labels: readonly string[]): string | null {
	const exact = labels.find((label) => label === reply.id) ?? labels.find((label) => label === reply.title);
	if (exact !== undefined) return exact;
	// A title longer than Meta's 20 (24 for a list row) characters was cut by the sender: match its start.
	const title = reply.title.replace(/…$/, '');
	if (title.length < WHATSAPP_LIMITS.buttonTitle - 1) return null;
	const started = labels.filter((label) => label.startsWith(title));
	return started.length === 1 ? (started[0] ?? null) : null;
}

/** A Click-to-WhatsApp referral in Parley's words (null when the message carries none). */
export function referralOf(message: Pick<MetaMessage, 'referral'>): WhatsappReferral | null {
	const r = message.referral;
	if (!r) return null;
	const referral: WhatsappReferral = {
		...(r.source_url ? { sourceUrl: r.source_url } : {}),
		...(r.source_id ? { sourceId: r.source_id } : {}),
		...(r.source_type ? { sourceType: r.source_type } : {}),
		...(r.headline ? { headline: r.headline } : {}),
		...(r.body ? { body: r.body } : {}),
		...(r.media_type ? { mediaType: r.media_type } : {}),
		...(r.ctwa_clid ? { ctwaClid: r.ctwa_clid } : {}),
	};
	return Object.keys(referral).length > 0 ? referral : null;
}

/**
 * A referral as a contact's origin (first and last touch), keyed like the widget's origin (`gclid`,
 * `landingUrl`…): `ctwaClid` is Meta's click id as `gclid` is Google's; the ad's fields carry an `ad` prefix.
 */
export function referralOrigin(referral: WhatsappReferral): Record<string, string> {
	const origin: Record<string, string> = {
		ctwaClid: referral.ctwaClid,
		adSourceUrl: referral.sourceUrl,
		adSourceId: referral.sourceId,
		adSourceType: referral.sourceType,
		adHeadline: referral.headline,
		adMediaType: referral.mediaType,
	} as Record<string, string>;
	return Object.fromEntries(Object.entries(origin).filter(([, value]) => typeof value === 'string' && value !== ''));
}

/** Meta's Unix-seconds timestamp as ms, never later than `now` (a sender's clock ahead is not the future). */
export function sentAtOf(timestamp: string, now: number): number {
	const ms = Number(timestamp) * 1000;
	return Number.isFinite(ms) && ms > 0 ? Math.min(ms, now) : now;
}
