/**
 * The messaging-app bubble: a wa.me link to the configured number with the pre-filled text. When the visitor
 * came from a campaign, the text carries a short reference (src/protocol/handoff-ref.ts) and the widget
 * records reference -> origin with the Worker, so a conversation that moves to the app keeps its campaign.
 */
import { handoffText } from '../../src/protocol/handoff-ref';
import type { Origin, WidgetConfig } from './api-types';

/** The wa.me link, or null when the bubble is off or has no number. */
export function appLink(config: WidgetConfig, reference: string | null): string | null {
	const { enabled, phoneNumber, prefilledMessage } = config.messagingBubble;
	if (!enabled || !phoneNumber) return null;
	const text = reference ? handoffText(prefilledMessage, reference) : prefilledMessage.trim();
	return `https://wa.me/${phoneNumber.replace(/\D/g, '')}${text ? `?text=${encodeURIComponent(text)}` : ''}`;
}

/** Records the reference's origin (POST /widget/{id}/handoffs); best-effort, never holding up the app link. */
export function recordHandoff(
	api: string,
	workspaceId: string,
	reference: string,
	origin: Origin,
	session: string | undefined,
): void {
	fetch(`${api}/widget/${encodeURIComponent(workspaceId)}/handoffs`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', ...(session ? { 'Parley-Session': session } : {}) },
		body: JSON.stringify({ ref: reference, channel: 'whatsapp', origin }),
		keepalive: true,
	}).catch(() => {});
}
