import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { hasPermission } from '../../../src/model/permissions';
import type { Schemas } from '../api/client';
import { useBotRuns, useChangeConversation, useConversationChanged, useStartBot } from '../data/conversations';
import type { ConsoleSession } from '../data/session';
import { useDirectory } from '../data/workspace';
import { usePresence } from '../feed';
import { t, when } from '../i18n';
import { useShortcuts } from '../ui/hooks';
import { Problem } from '../ui/problem';
import { TagEditor } from '../ui/tag-editor';
import { SnoozeControl } from './conversation-snooze';

type Conversation = Schemas['ConversationWithContact'];

/**
 * What an operator does to a conversation: assign it (to me, another operator or a group), close or reopen
 * it, tag it, start a bot and read its runs. Keys: a assign to me, x close or reopen.
 */
export function ConversationActions({
	conversation,
	session,
}: {
	conversation: Conversation;
	session: ConsoleSession;
}) {
	const directory = useDirectory();
	const presence = usePresence();
	const id = conversation.id;
	const refresh = useConversationChanged(id);
	const change = useChangeConversation(id);
	const closed = conversation.status === 'closed';
	const assignToMe = () => change.mutate({ assigneeId: session.operator.id });
	const closeOrReopen = () => change.mutate({ status: closed ? 'open' : 'closed' });
	useShortcuts({ a: assignToMe, x: closeOrReopen });
	const operators = directory.data?.operators.filter((o) => !o.disabled || o.id === conversation.assigneeId) ?? [];

	return (
		<div class="actions">
			<div class="action-row">
				<button
					type="button"
					disabled={conversation.assigneeId === session.operator.id || change.isPending}
					onClick={assignToMe}
				>
					{t('conversation.assignToMe')}
				</button>
				<label class="inline">
					<span>{t('conversation.assignee')}</span>
					<select
						aria-label={t('conversation.assignee')}
						value={conversation.assigneeId ?? ''}
						disabled={change.isPending}
						onChange={(e) => change.mutate({ assigneeId: e.currentTarget.value || null })}
					>
						<option value="">{t('common.nobody')}</option>
						{operators.map((o) => (
							<option key={o.id} value={o.id}>
								{o.name} ({t(`presence.${presence.get(o.id) ?? 'offline'}`)})
							</option>
						))}
					</select>
				</label>
				<label class="inline">
					<span>{t('conversation.group')}</span>
					<select
						aria-label={t('conversation.group')}
						value={conversation.groupId ?? ''}
						disabled={change.isPending}
						onChange={(e) => change.mutate({ groupId: e.currentTarget.value || null })}
					>
						<option value="">{t('common.none')}</option>
						{directory.data?.groups.map((g) => (
							<option key={g.id} value={g.id}>
								{g.name}
							</option>
						))}
					</select>
				</label>
				<button type="button" disabled={change.isPending} onClick={closeOrReopen}>
					{closed ? t('conversation.reopen') : t('conversation.close')}
				</button>
				<span class="muted status">{t(`inbox.status.${conversation.status}`)}</span>
			</div>
			{change.error && <Problem error={change.error} />}
			<SnoozeControl conversationId={id} snoozedUntil={conversation.snoozedUntil} />
			<TagEditor
				label={t('conversation.tags')}
				tags={conversation.tags}
				path={(name) => ({ kind: 'conversation', id, name })}
				onChanged={() => refresh()}
			/>
			<BotControls
				conversationId={id}
				bots={directory.data?.bots ?? []}
				canBuild={hasPermission(session.permissions, 'admin')}
			/>
		</div>
	);
}

/** Start one of the bots an operator may start by hand, and read what the conversation's bots did. */
function BotControls({
	conversationId,
	bots,
	canBuild,
}: {
	conversationId: string;
	bots: { id: string; name: string }[];
	/** Admins open a run on its bot's canvas. */
	canBuild: boolean;
}) {
	const [botId, setBotId] = useState('');
	const [open, setOpen] = useState(false);
	const runs = useBotRuns(conversationId, open);
	const start = useStartBot(conversationId);
	return (
		<details class="bots" onToggle={(e) => setOpen(e.currentTarget.open)}>
			<summary>{t('conversation.bots')}</summary>
			<div class="action-row">
				<label class="inline">
					<span>{t('conversation.startBot')}</span>
					<select
						aria-label={t('conversation.startBot')}
						value={botId}
						onChange={(e) => setBotId(e.currentTarget.value)}
					>
						<option value="">{bots.length ? t('conversation.chooseBot') : t('conversation.noBots')}</option>
						{bots.map((bot) => (
							<option key={bot.id} value={bot.id}>
								{bot.name}
							</option>
						))}
					</select>
				</label>
				<button type="button" disabled={!botId || start.isPending} onClick={() => start.mutate(botId)}>
					{t('conversation.start')}
				</button>
			</div>
			{start.error && <Problem error={start.error} />}
			{runs.error && <Problem error={runs.error} />}
			<ol class="bot-runs">
				{runs.data?.data.map((run) => (
					<li key={run.id}>
						<strong>{run.bot.name}</strong> · {t(`botRun.${run.status}`)} · {when(run.startedAt)}
						{run.reason && <span class="muted"> · {run.reason}</span>}
						{canBuild && (
							<>
								{' · '}
								<Link href={`/bots/${run.bot.id}?conversation=${conversationId}&run=${run.id}`}>
									{t('conversation.openRun')}
								</Link>
							</>
						)}
						<ul>
							{run.log.map((entry) => (
								<li key={`${entry.stepId}-${entry.at}`} class={entry.error ? 'error' : 'muted'}>
									{entry.stepId}
									{entry.error ? `: ${entry.error}` : ''}
								</li>
							))}
						</ul>
					</li>
				))}
				{runs.data?.data.length === 0 && <li class="muted">{t('conversation.noBotRuns')}</li>}
			</ol>
		</details>
	);
}
