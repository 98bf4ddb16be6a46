import { Link } from 'wouter-preact';
import { useTaskDone, useTasksToday } from '../../data/crm';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';

/** My open tasks due today or overdue, oldest due first, ticked off in place. */
export function TasksToday() {
	const tasks = useTasksToday();
	const done = useTaskDone();
	const rows = [...(tasks.data?.data ?? [])].sort((a, b) => (a.dueAt ?? '').localeCompare(b.dueAt ?? ''));
	const now = new Date().toISOString();
	return (
		<section class="records-list narrow" aria-label={t('tasks.title')}>
			<h1>{t('tasks.title')}</h1>
			{tasks.error && <Problem error={tasks.error} retry={() => tasks.refetch()} />}
			{done.error && <Problem error={done.error} />}
			<ul class="plain tasks">
				{rows.map((task) => (
					<li key={task.id} class={task.dueAt && task.dueAt < now ? 'overdue' : ''}>
						<label class="inline">
							<input
								type="checkbox"
								disabled={done.isPending}
								onChange={() => done.mutate(task.id)}
								aria-label={t('tasks.done', { title: task.title })}
							/>
							<span>{task.title}</span>
						</label>
						<div class="muted small">
							{task.dueAt && when(task.dueAt)}
							{task.conversationId && (
								<>
									{' · '}
									<Link href={`/conversations/${task.conversationId}`}>{t('tasks.conversation')}</Link>
								</>
							)}
							{task.contactId && (
								<>
									{' · '}
									<Link href={`/contacts/${task.contactId}`}>{t('tasks.contact')}</Link>
								</>
							)}
							{task.dealId && (
								<>
									{' · '}
									<Link href={`/deals?deal=${task.dealId}`}>{t('tasks.deal')}</Link>
								</>
							)}
						</div>
						{task.description && <p class="small">{task.description}</p>}
					</li>
				))}
			</ul>
			{tasks.isSuccess && rows.length === 0 && <p class="muted">{t('tasks.none')}</p>}
		</section>
	);
}
