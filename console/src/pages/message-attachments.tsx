import { storedFileId } from '../../../src/model/files';
import type { Schemas } from '../api/client';
import { t } from '../i18n';
import { ClipIcon, sizeLabel } from './composer-files';

type Attachment = Schemas['Attachment'];

/**
 * A message's files: Parley's own (sent by a visitor, the team, mail or WhatsApp) read from this origin with
 * the operator's session, an image shown inline and anything else as a named link; a file hosted elsewhere
 * (a bot's, an integrator's) only as a link, so opening a conversation fetches nothing from other sites.
 */
export function MessageAttachments({ files }: { files: Attachment[] }) {
	if (files.length === 0) return null;
	return (
		<ul class="attachments" aria-label={t('attach.files')}>
			{files.map((file) => {
				const stored = storedFileId(file.url);
				// The path, not the stored URL: it names the deployment's https host, this page may be another origin.
				const href = stored ? `/v3/files/${stored}` : file.url;
				const image = stored !== null && file.contentType.startsWith('image/');
				return (
					<li key={file.url} class={image ? 'image' : 'file'}>
						{image ? (
							<a href={href} target="_blank" rel="noreferrer noopener" title={file.name}>
								<img src={href} alt={file.name} loading="lazy" />
							</a>
						) : (
							<a href={href} target="_blank" rel="noreferrer noopener">
								<ClipIcon /> {file.name}
							</a>
						)}
						{!image && <span class="muted small"> · {sizeLabel(file.size)}</span>}
					</li>
				);
			})}
		</ul>
	);
}
