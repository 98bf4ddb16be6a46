import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'preact/hooks';
import { api, okVersioned, type Schemas, type Versioned } from '../../api/client';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';

/** Image types the API takes for a logo (never SVG: it can carry script). */
const ACCEPT = 'image/png,image/jpeg,image/webp,image/gif';

/**
 * Upload the widget's logo (PNG with a transparent background, 200×200 px recommended): the file goes as it is
 * to `PUT /v3/widget/logo`, which checks its bytes and size and answers the saved settings; Remove clears it.
 * Either takes effect at once, apart from the rest of the form.
 */
export function LogoUpload(props: {
	logoUrl: string | null;
	onSaved(settings: Versioned<Schemas['WidgetSettings']>): void;
}) {
	const client = useQueryClient();
	const id = useId();
	const saved = (settings: Versioned<Schemas['WidgetSettings']>) => {
		client.setQueryData(['widget-settings'], settings);
		void client.invalidateQueries({ queryKey: ['widget-info'] });
		props.onSaved(settings);
	};
	const upload = useSubmit(async (file: File) => {
		const answer = await okVersioned(
			api.PUT('/v3/widget/logo', {
				body: file as unknown as string,
				bodySerializer: (body: unknown) => body as BodyInit,
				headers: { 'Content-Type': file.type || 'application/octet-stream' },
			}),
		);
		saved(answer);
	});
	const remove = useSubmit(async () => saved(await okVersioned(api.DELETE('/v3/widget/logo'))));
	return (
		<div class="logo-upload">
			<label for={id}>{t('widget.logoUpload')}</label>
			<input
				id={id}
				type="file"
				accept={ACCEPT}
				disabled={upload.busy}
				onChange={(e) => {
					const file = e.currentTarget.files?.[0];
					if (file) void upload.submit(file);
					e.currentTarget.value = '';
				}}
			/>
			<p class="hint muted">{t('widget.logoUpload.hint')}</p>
			{props.logoUrl && (
				<button type="button" disabled={remove.busy} onClick={() => remove.submit()}>
					{t('widget.logoRemove')}
				</button>
			)}
			{upload.error !== null && <Problem error={upload.error} />}
			{remove.error !== null && <Problem error={remove.error} />}
		</div>
	);
}
