import { useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { setPassword as choosePassword, useSignedIn } from '../data/session';
import { t } from '../i18n';
import { useSubmit } from '../ui/hooks';
import { Problem } from '../ui/problem';

/** The page an invitation or reset link opens: the token is in the fragment, never sent to a server log. */
export function SetPassword() {
	const signedIn = useSignedIn();
	const [, navigate] = useLocation();
	const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
	const [password, setPassword] = useState('');
	const { busy, error, submit } = useSubmit(async () => {
		signedIn(await choosePassword(token, password));
		history.replaceState(null, '', location.pathname);
		navigate('/');
	});
	return (
		<div class="centered">
			<form
				class="card"
				onSubmit={(event) => {
					event.preventDefault();
					void submit();
				}}
			>
				<h1>{t('setPassword.title')}</h1>
				{!token && <p class="error">{t('setPassword.missing')}</p>}
				<label for="new-password">{t('signIn.password')}</label>
				<input
					id="new-password"
					type="password"
					autoComplete="new-password"
					minLength={10}
					required
					value={password}
					onInput={(e) => setPassword(e.currentTarget.value)}
				/>
				{error !== null && <Problem error={error} />}
				<button class="primary" type="submit" disabled={busy || !token}>
					{t('setPassword.submit')}
				</button>
			</form>
		</div>
	);
}
