/**
 * Find Conversation, Create Conversation and Send Message (a scenario's; a rule's sends too): the contact's latest conversation; a
 * conversation started with the contact (its first message from the scenario, as a bot); a message posted
 * through the conversation's room, so the widget sees it live. With the step's `idempotencyKey`, a retried
 * step finds the conversation or the message its first try made instead of making another.
 */
import { quickReplies } from '../../../../model/messages';
import { getConversation, latestConversation } from '../../../conversations/conversations';
import { postMessage } from '../../../conversations/live';
import { startConversation } from '../../../conversations/start';
import { type ActionContext, type ActionResult, given, needs, refused, refusedOn } from '../context';

export function performFindConversation(
	ctx: ActionContext,
	action: { contact: string; channel?: string; open: boolean },
): Promise<ActionResult> {
	return refusedOn(async () => {
		const contactId = given(action.contact);
		if (contactId === undefined) return refused('contact: rendered empty');
		const id = await latestConversation(ctx.db, ctx.workspaceId, contactId, {
			channels: action.channel === undefined ? null : [action.channel],
			open: action.open,
		});
		if (id === null) return { ok: true, notFound: true };
		return { ok: true, data: await getConversation(ctx.db, ctx.workspaceId, id) };
	});
}

export function performCreateConversation(
	ctx: ActionContext,
	action: { contact: string; channel: string; message?: string },
): Promise<ActionResult> {
	return refusedOn(async () => {
		const contactId = given(action.contact);
		if (contactId === undefined) return refused('contact: rendered empty');
		const text = given(action.message);
		const key = ctx.idempotencyKey;
		const started = await startConversation(
			ctx.env,
			ctx.db,
			{
				workspaceId: ctx.workspaceId,
				contact: { id: contactId },
				channel: action.channel,
				startKey: key ?? null,
				actor: ctx.actor,
				message:
					text === undefined
						? null
						: { authorKind: 'bot', authorId: ctx.actor.id, text, clientMessageId: key ? `${key}:first` : null },
			},
			ctx.now,
		);
		return { ok: true, data: await getConversation(ctx.db, ctx.workspaceId, started.id) };
	});
}

/** In the conversation the action names (a scenario's), else in the run's (a rule's). */
export function performSendMessage(
	ctx: ActionContext,
	action: { conversation?: string; text: string; buttons?: string[] },
): Promise<ActionResult> {
	return refusedOn(async () => {
		const conversationId =
			action.conversation === undefined ? needs(ctx, 'conversationId') : given(action.conversation);
		if (conversationId === undefined) return refused('conversation: rendered empty');
		const text = given(action.text);
		if (text === undefined) return refused('text: rendered empty');
		const { message } = await postMessage(ctx.env, {
			workspaceId: ctx.workspaceId,
			conversationId,
			authorKind: 'bot',
			authorId: ctx.actor.id,
			text,
			attachments: [],
			interactive: quickReplies(action.buttons),
			clientMessageId: ctx.idempotencyKey ?? null,
			actor: ctx.actor,
		});
		return { ok: true, data: { id: message.id, seq: message.seq } };
	});
}
