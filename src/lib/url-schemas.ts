/**
 * URL fields with the scheme they take stated in the API document. zod checks a URL's protocol, but the
 * generator writes only `format: uri`, which admits any scheme (`ftp:`, `javascript:`): each field here adds
 * the scheme as its `pattern`, from the same place as the check.
 */
import { z } from '@hono/zod-openapi';

/** An https URL; `error` replaces zod's message. */
export function httpsUrl(error?: string) {
	return z.url({ protocol: /^https$/, ...(error === undefined ? {} : { error }) }).openapi({ pattern: '^https://' });
}

/** A web page's URL (http or https) of at most `max` characters. */
export function webUrl(max: number) {
	return z
		.url({ protocol: /^https?$/ })
		.max(max)
		.openapi({ pattern: '^https?://' });
}

/**
 * An address Parley calls (a webhook, a push service, a Graph API proxy), of at most `max` characters. The
 * outbound guard (`urlRefusal`, src/lib/guarded-fetch.ts) judges it with the deployment's settings: https
 * only once deployed, which the document states; plain http passes here for a deployment that runs locally
 * (`HTTPS_ONLY` off), whose guard allows it.
 */
export function callableUrl(max: number) {
	return z
		.url({ protocol: /^https?$/ })
		.max(max)
		.openapi({ pattern: '^https://' });
}
