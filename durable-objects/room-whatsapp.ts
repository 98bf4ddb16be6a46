import { workspaceDb } from '../src/db/shards';
import { TEMPLATE_CLIENT_PREFIX } from '../src/domain/channels/whatsapp/replies';
import { windowRefusal } from '../src/domain/channels/whatsapp/window';
import type { CheckedMessage } from '../src/domain/conversations/message-command';
import { WHATSAPP_CHANNEL } from '../src/model/whatsapp';

/**
 * Why a team member's message cannot be stored in this WhatsApp conversation (its 24-hour window has closed:
 * it could never reach the customer), or null. Only a team member's free-form message into a WhatsApp
 * conversation pays the read; a private note, a template the team chose (sent by its own path) and the
 * messages of bots, rules and scenarios are stored (the last ones' deliveries are recorded skipped).
 */
export async function whatsappRefusal(env: Env, channel: string | null, input: CheckedMessage): Promise<string | null> {
	if (channel !== WHATSAPP_CHANNEL || input.authorKind !== 'operator' || input.private) return null;
	if (input.clientMessageId?.startsWith(TEMPLATE_CLIENT_PREFIX)) return null;
	return windowRefusal(await workspaceDb(env, input.workspaceId), input.workspaceId, input.conversationId);
}
