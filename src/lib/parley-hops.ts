/**
 * How many calls Parley made to itself in a row before this one. Every outbound call (the guarded fetch:
 * scenario HTTP steps, bot integrations, outbound webhooks) carries `Parley-Hops`: the count that led to the
 * work making it, plus one. An inbound webhook call (or an API start of a run) reads it, refuses it at
 * MAX_PARLEY_HOPS with 508, and otherwise keeps it with the run it starts, whose own calls then carry one
 * more. A scenario that posts to its own webhook, directly or through another Parley, so stops after a few
 * rounds instead of starting itself for ever.
 *
 * A call that does not carry the header counts 0: any caller can leave it out, so the count bounds loops made
 * of Parley's own calls (which always carry it), not what an outside relay does; the flood protection of
 * src/domain/automation/scenarios/flood.ts is the backstop for those.
 */
import { z } from '@hono/zod-openapi';
import { Invalid, LoopDetected } from './errors';

export const HOPS_HEADER = 'Parley-Hops';

/** Calls in a row Parley follows: a run started by the 5th is refused (a chain of 5 runs at most). */
export const MAX_PARLEY_HOPS = 5;

/** The header as the routes that start runs document it (they read it with `inboundHops`). */
export const hopsHeaderSchema = z
	.string()
	.max(12)
	.optional()
	.openapi({
		description: `Set by Parley on its own outbound calls: how many calls it made in a row to get here. At ${MAX_PARLEY_HOPS} the call is refused with 508 (a loop); below, the run keeps it and its calls carry one more.`,
		example: '1',
	});

/**
 * The hop count an inbound call brings: 0 without the header, 422 when it is not a whole number, 508 (with
 * nothing recorded, since this runs before any write) at MAX_PARLEY_HOPS or beyond.
 */
export function inboundHops(headers: Headers): number {
	const raw = headers.get(HOPS_HEADER);
	if (raw === null) return 0;
	if (!/^\s*\d{1,9}\s*$/.test(raw)) {
		throw new Invalid('must be a whole number of hops', { field: [HOPS_HEADER.toLowerCase()], source: 'header' });
	}
	const hops = Number(raw);
	if (hops >= MAX_PARLEY_HOPS) {
		throw new LoopDetected(
			`${HOPS_HEADER} is ${hops}: this call is the latest of ${hops} calls Parley made in a row to itself, and ${MAX_PARLEY_HOPS} is the most it follows (a scenario calling its own webhook?). Nothing was recorded.`,
		);
	}
	return hops;
}

/** Where every Parley deployment takes inbound webhook calls (src/routes/automation/workflows.ts). */
const INBOUND_PATH = '/v3/workflows/webhook/';

/**
 * Whether `url` is a Parley inbound webhook, on any host: the guarded fetch refuses a redirect there (a 307
 * keeps the method and body, so any outside host could turn a scenario's call into a call of its own
 * webhook). Judged by the path alone, decoded, case and repeated slashes ignored, anywhere in it (a deployment
 * behind a path prefix): a queue consumer knows no origin of its own, one deployment answers on several
 * (workers.dev, custom domains), and no integration needs a redirect into a Parley's webhook. Calling one
 * directly stays allowed, bounded by the hop count.
 */
export function isParleyInbound(url: string): boolean {
	let path: string;
	try {
		path = new URL(url).pathname;
	} catch {
		return false;
	}
	// Decoded once more than the router would, so no spelling (%2F, %77ebhook) slips past.
	for (let round = 0; round < 3 && path.includes('%'); round++) {
		try {
			path = decodeURIComponent(path);
		} catch {
			break;
		}
	}
	return path
		.toLowerCase()
		.replace(/\/{2,}/g, '/')
		.includes(INBOUND_PATH);
}
