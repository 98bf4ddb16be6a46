/**
 * A bot's message as the room's message command: its text (never empty), its media as attachments, what it
 * asks of the visitor (buttons, a rating, a typed input) for the widget, and its client id (the run's key for
 * it), checked as every sender's message is.
 */
import type { Effect } from '../../../engines/bot-interpreter';
import { INPUT_KINDS, type Interactive, quickReplies } from '../../../model/messages';
import { checkMessage } from '../../conversations/message-command';

type MessageEffect = Extract<Effect, { kind: 'message' }>;

const MEDIA_TYPES: Record<string, string> = {
	image: 'image/*',
	video: 'video/*',
	document: 'application/octet-stream',
};

export function botMessage(
	workspaceId: string,
	conversationId: string,
	botId: string,
	clientMessageId: string,
	effect: MessageEffect,
): ReturnType<typeof checkMessage> {
	return checkMessage({
		workspaceId,
		conversationId,
		authorKind: 'bot',
		authorId: botId,
		text: effect.text.trim() === '' ? '…' : effect.text,
		attachments: (effect.media ?? []).map((item) => ({
			url: item.url,
			name: item.name ?? (item.url.split('/').pop() || item.kind),
			contentType: MEDIA_TYPES[item.kind] ?? 'application/octet-stream',
			size: 0,
		})),
		interactive: interactiveOf(effect),
		clientMessageId,
	});
}

/** What a bot message asks of the visitor, for the widget: buttons, a rating, a typed input. */
function interactiveOf(effect: MessageEffect): Interactive | null {
	if (effect.ask === 'rating') return { type: 'rating', max: 5 };
	if (effect.buttons && effect.buttons.length > 0) return quickReplies(effect.buttons);
	const input = INPUT_KINDS.find((kind) => kind === effect.ask);
	return input ? { type: 'input', input } : null;
}
