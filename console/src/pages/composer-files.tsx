import { useEffect, useRef, useState } from 'preact/hooks';
import { ACCEPTED_FILE_TYPES, checkFile, MAX_FILE_BYTES, MAX_FILES_PER_SEND, tooMany, uploadFile } from '../data/files';
import { t } from '../i18n';
import './attachments.css';

/** A file waiting in the composer: its preview (an image's), and its upload's progress or failure once sent. */
interface Staged {
	key: string;
	file: File;
	preview: string | null;
	progress: number | null;
	failed: string | null;
}

/**
 * The files of the composer: added by the paperclip, a drop or a paste, each checked by the Worker's own
 * rules first (a refused file says why here and is never staged), then sent one by one with their progress
 * when the reply or the note goes. A file the Worker still refuses stays with why.
 */
export function useStagedFiles(conversationId: string) {
	const [staged, setStaged] = useState<Staged[]>([]);
	const [refusals, setRefusals] = useState<string[]>([]);
	const stagedRef = useRef(staged);
	stagedRef.current = staged;
	// The previews are this page's object URLs: given back when the conversation goes.
	useEffect(
		() => () => {
			for (const item of stagedRef.current) if (item.preview) URL.revokeObjectURL(item.preview);
		},
		[],
	);

	const update = (key: string, change: Partial<Staged>) =>
		setStaged((all) => all.map((item) => (item.key === key ? { ...item, ...change } : item)));
	const remove = (key: string) =>
		setStaged((all) =>
			all.filter((item) => {
				if (item.key === key && item.preview) URL.revokeObjectURL(item.preview);
				return item.key !== key;
			}),
		);

	const add = async (files: File[]) => {
		if (files.length === 0) return;
		if (tooMany(stagedRef.current.length, files.length)) {
			setRefusals([t('attach.count', { n: MAX_FILES_PER_SEND })]);
			return;
		}
		const refused: string[] = [];
		const taken: Staged[] = [];
		for (const file of files) {
			const problem = await checkFile(file);
			if (problem === 'type') refused.push(t('attach.type', { name: file.name }));
			else if (problem === 'size')
				refused.push(t('attach.size', { name: file.name, mb: MAX_FILE_BYTES / 1024 / 1024 }));
			else {
				const preview = file.type.startsWith('image/') ? URL.createObjectURL(file) : null;
				taken.push({ key: crypto.randomUUID(), file, preview, progress: null, failed: null });
			}
		}
		setRefusals(refused);
		setStaged((all) => [...all, ...taken]);
	};

	/** Sends every staged file, one after the other; those sent leave the composer. */
	const send = async (options: { private: boolean }) => {
		setRefusals([]);
		for (const item of stagedRef.current) {
			if (item.progress !== null) continue;
			update(item.key, { progress: 0, failed: null });
			try {
				await uploadFile(conversationId, item.file, { ...options, key: item.key }, (progress) =>
					update(item.key, { progress }),
				);
				remove(item.key);
			} catch (caught) {
				const reason = caught instanceof Error ? caught.message : String(caught);
				update(item.key, { progress: null, failed: t('attach.failed', { name: item.file.name, reason }) });
			}
		}
	};

	return { staged, refusals, add, remove, send, pending: staged.length > 0 };
}

export type StagedFiles = ReturnType<typeof useStagedFiles>;

/** The paperclip: a button that opens the file picker (the input itself is for assistive tech and tests). */
export function AttachButton({ files, id }: { files: StagedFiles; id: string }) {
	const input = useRef<HTMLInputElement>(null);
	return (
		<>
			<input
				ref={input}
				id={id}
				type="file"
				multiple
				class="visually-hidden"
				tabIndex={-1}
				aria-label={t('attach.input')}
				accept={ACCEPTED_FILE_TYPES.join(',')}
				onChange={(event) => {
					const picked = [...(event.currentTarget.files ?? [])];
					event.currentTarget.value = '';
					void files.add(picked);
				}}
			/>
			<button
				type="button"
				class="attach"
				aria-label={t('attach.button')}
				title={t('attach.button')}
				onClick={() => input.current?.click()}
			>
				<ClipIcon />
			</button>
		</>
	);
}

/** What the composer holds: why files were refused, and the staged files with their previews and progress. */
export function StagedFileList({ files }: { files: StagedFiles }) {
	return (
		<>
			{files.refusals.length > 0 && (
				<div class="attach-refused" role="alert" data-testid="attach-refused">
					{files.refusals.map((reason) => (
						<p key={reason}>{reason}</p>
					))}
				</div>
			)}
			{files.staged.length > 0 && (
				<ul class="composer-files" aria-label={t('attach.files')}>
					{files.staged.map((item) => (
						<li key={item.key} class={item.failed ? 'failed' : undefined}>
							{item.preview && <img src={item.preview} alt="" />}
							<span class="file-name">{item.file.name}</span>
							<span class="muted small">{sizeLabel(item.file.size)}</span>
							{item.progress !== null && (
								<progress max={1} value={item.progress} aria-label={t('attach.uploading', { name: item.file.name })} />
							)}
							{item.failed && (
								<span class="error small" role="alert">
									{item.failed}
								</span>
							)}
							{item.progress === null && (
								<button
									type="button"
									class="remove-file"
									aria-label={t('attach.remove', { name: item.file.name })}
									onClick={() => files.remove(item.key)}
								>
									×
								</button>
							)}
						</li>
					))}
				</ul>
			)}
		</>
	);
}

/** A paperclip, drawn (an emoji's look depends on the system's fonts, and some have none). */
export function ClipIcon() {
	return (
		<svg
			viewBox="0 0 24 24"
			aria-hidden="true"
			fill="none"
			stroke="currentColor"
			stroke-width="2"
			stroke-linecap="round"
		>
			<path d="M21 11.5 12.5 20a5 5 0 0 1-7-7l9-9a3.3 3.3 0 0 1 4.7 4.7l-9 9a1.7 1.7 0 0 1-2.4-2.4L16 7.1" />
		</svg>
	);
}

/** A file size as people read it: bytes, KB or MB (of 1,024). */
export function sizeLabel(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The files a drop or a paste carries (a pasted screenshot comes as one). */
export function filesOf(transfer: DataTransfer | null): File[] {
	return transfer ? [...transfer.files] : [];
}
