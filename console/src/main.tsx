import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from 'preact';
import { Router } from 'wouter-preact';
import { ApiError } from './api/client';
import { App } from './app';
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

render(
	<QueryClientProvider client={queries}>
		<Router base="/console">
			<App />
		</Router>
	</QueryClientProvider>,
	document.getElementById('app') as HTMLElement,
);
