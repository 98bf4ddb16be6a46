/**
 * A message's files in the chat: an image shown inline, a video with controls, anything else as a link named
 * by the file. A file Parley stores (`…/v3/files/fil_…`, the team's or the visitor's own) is read through the
 * widget's endpoint with the visitor's session, since its URL needs an operator's credentials: an image as soon
 * as it is drawn, any other file when its link is clicked.
 */
import { storedFileId } from '../../../src/model/files';
import type { Attachment } from '../api-types';

/** A stored file of the conversation as an object URL of this page. */
export type OpenFile = (fileId: string) => Promise<string>;

/** The element for one attachment; `open` reads Parley's stored files (without it they show by name only). */
export function attachmentElement(file: Attachment, open?: OpenFile): HTMLElement {
	const stored = storedFileId(file.url);
	if (stored) return open ? storedFile(file, stored, open) : named(file);
	// Only https files, as the Worker only stores https URLs; anything else is not shown.
	const safe = /^https:\/\//i.test(file.url);
	if (safe && file.contentType.startsWith('image/')) {
		const image = document.createElement('img');
		image.src = file.url;
		image.alt = file.name;
		image.loading = 'lazy';
		return image;
	}
	if (safe && file.contentType.startsWith('video/')) {
		const video = document.createElement('video');
		video.src = file.url;
		video.controls = true;
		video.preload = 'metadata';
		video.setAttribute('aria-label', file.name);
		return video;
	}
	const link = document.createElement('a');
	link.textContent = file.name;
	if (safe) link.href = file.url;
	link.target = '_blank';
	link.rel = 'noopener noreferrer';
	return link;
}

function named(file: Attachment): HTMLElement {
	const sent = document.createElement('span');
	sent.className = 'file';
	sent.textContent = `📎 ${file.name}`;
	return sent;
}

function storedFile(file: Attachment, id: string, open: OpenFile): HTMLElement {
	if (file.contentType.startsWith('image/')) {
		const image = document.createElement('img');
		image.alt = file.name;
		// Said by name if it cannot be read (the session gone, the page's policy refusing blob: images).
		open(id).then(
			(url) => {
				image.src = url;
			},
			() => image.replaceWith(named(file)),
		);
		image.onerror = () => image.replaceWith(named(file));
		return image;
	}
	// Read on click and handed to the browser as a download under its name: a PDF may be large.
	const link = document.createElement('a');
	link.className = 'file';
	link.href = '#';
	link.textContent = `📎 ${file.name}`;
	link.addEventListener('click', (event) => {
		event.preventDefault();
		open(id).then(
			(url) => {
				const save = document.createElement('a');
				save.href = url;
				save.download = file.name;
				save.click();
			},
			() => {},
		);
	});
	return link;
}

/** Reads each stored file once per page (a redraw of the log does not fetch it again). */
export function fileOpener(read: (conversationId: string, fileId: string) => Promise<Blob>) {
	const urls = new Map<string, Promise<string>>();
	return (conversationId: string): OpenFile =>
		(fileId) => {
			let url = urls.get(fileId);
			if (!url) {
				url = read(conversationId, fileId).then((blob) => URL.createObjectURL(blob));
				// A failed read may succeed later (a network blip): it is not kept.
				url.catch(() => urls.delete(fileId));
				urls.set(fileId, url);
			}
			return url;
		};
}
