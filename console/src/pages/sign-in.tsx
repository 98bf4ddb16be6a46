import { useState } from 'preact/hooks';
import type { Schemas } from '../api/client';
import { signIn, useSignedIn } from '../data/session';
import { t } from '../i18n';
import { useSubmit } from '../ui/hooks';
import { Problem } from '../ui/problem';

/** E-mail and password; when they open several workspaces, which one. */
export function SignIn() {
	const signedIn = useSignedIn();
	const [email, setEmail] = useState('');
	const [password, setPassword] = useState('');
	const [choices, setChoices] = useState<Schemas['WorkspaceChoice']['workspaces'] | null>(null);
	const { busy, error, submit } = useSubmit(async (workspaceId?: string) => {
		const answer = await signIn({ email, password, ...(workspaceId ? { workspaceId } : {}) });
		// The password opens several workspaces: which one.
		if ('choices' in answer) setChoices(answer.choices);
		else signedIn(answer.session);
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
				<h1>{t('signIn.title')}</h1>
				<label for="email">{t('signIn.email')}</label>
				<input
					id="email"
					type="email"
					autoComplete="username"
					required
					value={email}
					onInput={(e) => setEmail(e.currentTarget.value)}
				/>
				<label for="password">{t('signIn.password')}</label>
				<input
					id="password"
					type="password"
					autoComplete="current-password"
					required
					value={password}
					onInput={(e) => setPassword(e.currentTarget.value)}
				/>
				{error !== null && <Problem error={error} />}
				{choices && (
					<fieldset>
						<legend>{t('signIn.chooseWorkspace')}</legend>
						{choices.map((choice) => (
							<button type="button" key={choice.id} onClick={() => submit(choice.id)} disabled={busy}>
								{choice.name}
							</button>
						))}
					</fieldset>
				)}
				<button class="primary" type="submit" disabled={busy}>
					{t('signIn.submit')}
				</button>
			</form>
		</div>
	);
}
