/**
 * The messaging-app bubble: a wa.me link to the configured number with the pre-filled text. When the visitor
 * came from a campaign, the text carries a short reference and the widget records reference -> origin with the
 * Worker (POST /widget/{workspaceId}/handoffs), so a conversation that moves to the app keeps its campaign.
 */
import type { Origin, WidgetConfig } from './api-types';

/** Crockford's base32 without I, L, O, U: nothing a visitor could misread when it shows in the app. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newReference(): string {
	return Array.from(crypto.getRandomValues(new Uint8Array(8)), (byte) => ALPHABET[byte % 32]).join('');
}

/** The wa.me link, or null when the bubble is off or has no number. */
export function appLink(config: WidgetConfig, reference: string | null): string | null {
	const { enabled, phoneNumber, prefilledMessage } = config.messagingBubble;
	if (!enabled || !phoneNumber) return null;
	const text = [prefilledMessage.trim(), reference ? `(ref ${reference})` : ''].filter(Boolean).join(' ');
	const query = text ? `?text=${encodeURIComponent(text)}` : '';
	return `https://wa.me/${phoneNumber.replace(/\D/g, '')}${query}`;
}

/** Records the reference's origin; best-effort and never blocking the navigation to the app. */
export function recordHandoff(api: string, workspaceId: string, reference: string, origin: Origin): void {
	fetch(`${api}/widget/${encodeURIComponent(workspaceId)}/handoffs`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ ref: reference, channel: 'whatsapp', origin }),
		keepalive: true,
	}).catch(() => {});
}
