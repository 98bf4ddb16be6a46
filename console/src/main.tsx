import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from 'preact';
import { Router } from 'wouter-preact';
import { ApiError } from './api/client';
import { App } from './app';
import { conversationListQuery } from './data/conversations';
import { readSession, sessionQuery } from './data/session';
import { listQuery, savedFilters } from './pages/inbox-filters';
import './styles.css';
import './pages/workspace.css';
import './pages/mail.css';
import './pages/whatsapp.css';

const queries = new QueryClient({
	defaultOptions: {
		queries: {
			// The inbox feed keeps lists fresh; a refetch on focus covers a feed that was down.
			staleTime: 30_000,
			retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 3,
		},
	},
});

/**
 * A cold load of the inbox is a chain: this script, the session, then the list's first page. Both reads start
 * here rather than in the effects of the renders that need them (an effect runs a frame after its render): the
 * session before the first render, and the inbox's list the moment the session's answer is read, before the
 * shell and the inbox render with it (some 65 ms on the bench's machine, in which the list's request waited,
 * then shared the Worker with the unread counts', the directory's and the tags'). The components find both
 * reads in flight under their keys; a failed read is theirs to retry and show.
 */
function startFirstReads(): void {
	const inbox = /^\/console\/?(conversations\/[^/]+)?$/.test(location.pathname);
	void queries.prefetchQuery({
		...sessionQuery,
		queryFn: async () => {
			const session = await readSession();
			if (session && inbox) {
				void queries.prefetchInfiniteQuery(conversationListQuery(listQuery(savedFilters(), session.operator.id)));
			}
			return session;
		},
	});
}

startFirstReads();
render(
	<QueryClientProvider client={queries}>
		<Router base="/console">
			<App />
		</Router>
	</QueryClientProvider>,
	document.getElementById('app') as HTMLElement,
);
