import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter-preact';
import { api, ok } from '../../api/client';
import { t, when } from '../../i18n';
import { Problem } from '../../ui/problem';

/** The end of today in this browser's time zone: "due today" includes everything overdue. */
function endOfToday(): string {
	const end = new Date();
	end.setHours(23, 59, 59, 999);
	return end.toISOString();
}

/** My open tasks due today or overdue, oldest due first, ticked off in place. */
export function TasksToday() {
	const client = useQueryClient();
	const tasks = useQuery({
		queryKey: ['tasks', 'today'],
		queryFn: () =>
			ok(
				api.GET('/v3/tasks', {
					params: { query: { assigneeId: 'me', done: 'false', dueBefore: endOfToday(), limit: 100 } },
				}),
			),
	});
	const done = useMutation({
		mutationFn: (id: string) => ok(api.PATCH('/v3/tasks/{id}', { params: { path: { id } }, body: { done: true } })),
		onSuccess: () => client.invalidateQueries({ queryKey: ['tasks'] }),
	});
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
