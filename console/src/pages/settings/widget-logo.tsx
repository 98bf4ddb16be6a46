import { useId } from 'preact/hooks';
import type { Schemas, Versioned } from '../../api/client';
import { useWidgetLogo } from '../../data/widget';
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
	const id = useId();
	const logo = useWidgetLogo();
	const upload = useSubmit(async (file: File) => props.onSaved(await logo.upload(file)));
	const remove = useSubmit(async () => props.onSaved(await logo.remove()));
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
