/**
 * The fake Graph API's media endpoints (Meta's "Media" page, WHATSAPP-REF §5): a media id resolves to its
 * descriptor (`{messaging_product, url, mime_type, sha256, file_size, id}`), whose `url` (on the fake, 5
 * minutes) serves the bytes to a caller with the token; `DELETE` forgets it. Files are registered by the
 * tests through `POST /__fake/media` (server.mjs).
 */
import { createHash } from 'node:crypto';

const MEDIA_ID = /^\/([0-9A-Za-z_.-]+)$/;

export function routes(fake) {
	const numberOf = (match) => fake.state.media.get(match[1])?.phoneNumberId ?? null;
	return [
		{
			method: 'GET',
			path: MEDIA_ID,
			numberOf,
			handle({ res, url, match }) {
				const id = match[1];
				const file = fake.state.media.get(id);
				if (!file) return fake.send(res, 400, fake.metaError(100, 'Invalid parameter', `Media ${id} does not exist.`));
				// With `phone_number_id`, Meta answers only for media of that number.
				const asked = url.searchParams.get('phone_number_id');
				if (asked && file.phoneNumberId && asked !== file.phoneNumberId) {
					return fake.send(res, 400, fake.metaError(100, 'Invalid parameter', `Media ${id} is not this number's.`));
				}
				return fake.send(res, 200, {
					messaging_product: 'whatsapp',
					url: fake.mediaUrl(id, file.ttlMs),
					mime_type: file.mimeType,
					// Hex here, as Meta's media endpoint gives it (webhooks carry base64).
					sha256: createHash('sha256').update(file.bytes).digest('hex'),
					...(file.omitFileSize ? {} : { file_size: file.bytes.length }),
					id,
				});
			},
		},
		{
			method: 'DELETE',
			path: MEDIA_ID,
			numberOf,
			handle({ res, match }) {
				if (!fake.state.media.delete(match[1])) {
					return fake.send(res, 400, fake.metaError(100, 'Invalid parameter', `Media ${match[1]} does not exist.`));
				}
				return fake.send(res, 200, { success: true });
			},
		},
	];
}
