/**
 * A campaign's state changes over time: sending now or scheduling (`sendOrSchedule`), the minute's sweep that
 * starts what is due and requeues what stalled (`sweepCampaigns`), and cancelling (`cancelCampaign`). Sending
 * itself is campaign-sending.ts.
 */
import { z } from '@hono/zod-openapi';
import { and, eq, sql } from 'drizzle-orm';
import { type Database, runBatch } from '../../db/client';
import { campaigns } from '../../db/schema';
import { Conflict, Invalid } from '../../lib/errors';
import { groupBy } from '../../lib/group-by';
import { zonedInstant } from '../../model/business-hours';
import { campaignRow } from './campaigns';
import { assertCanMail } from './email-sending';
import { queueBatches, startSending } from './sending';
import { checkWhatsappCampaign } from './whatsapp-sending';

/** A sending campaign with no progress for this long has its unfinished batches queued again by the sweep. */
const STALLED_MS = 5 * 60_000;

/** Reads a schedule in the workspace time zone: an instant with its offset, or a local `YYYY-MM-DDTHH:mm`. */
export const sendAtSchema = z
	.union([
		z.iso.datetime({ offset: true }),
		z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, 'must be an ISO 8601 instant or a local YYYY-MM-DDTHH:mm'),
	])
	.openapi({
		description:
			'When to start sending: a local time in the workspace time zone (`2026-12-01T09:00`) or an instant with its offset. Left out: now.',
		example: '2026-12-01T09:00',
	});

/**
 * The minute's sweep: starts the scheduled campaigns that are due, and queues again the unfinished batches of
 * a sending campaign that made no progress for STALLED_MS (a batch whose queueing failed, or that ran out of
 * retries). Both are safe to repeat.
 */
export async function sweepCampaigns(env: Env, db: Database, now = Date.now()): Promise<number> {
	const due = await db
		.select()
		.from(campaigns)
		.where(and(eq(campaigns.status, 'scheduled'), sql`${campaigns.sendAt} <= CAST(${now} AS INTEGER)`))
		.limit(50);
	let started = 0;
	for (const row of due) {
		try {
			await startSending(env, db, row, now);
			started++;
		} catch (error) {
			if (!(error instanceof Conflict)) console.error('starting a scheduled campaign failed', row.id, error);
		}
	}
	const stalled = await db.all<{ workspaceId: string; campaignId: string; batch: number }>(sql`
		SELECT DISTINCT r.workspace_id AS workspaceId, r.campaign_id AS campaignId, r.batch AS batch
		FROM campaigns c JOIN campaign_recipients r ON r.campaign_id = c.id AND r.status IN ('pending', 'sending')
		WHERE c.status = 'sending' AND c.updated_at < CAST(${now - STALLED_MS} AS INTEGER) LIMIT 500`);
	for (const [campaignId, rows] of groupBy(stalled, (r) => r.campaignId)) {
		await queueBatches(
			env,
			rows[0]?.workspaceId as string,
			campaignId,
			rows.map((r) => r.batch),
		);
		await db.update(campaigns).set({ updatedAt: now }).where(eq(campaigns.id, campaignId));
	}
	return started;
}

/**
 * Sends a draft or scheduled campaign now (`sendAt` left out, or a time already past) or schedules it for
 * `sendAt`: an instant with its offset, or a local `YYYY-MM-DDTHH:mm` read in the workspace time zone.
 */
export async function sendOrSchedule(
	env: Env,
	db: Database,
	workspaceId: string,
	id: string,
	sendAt: string | undefined,
	timeZone: string,
	now = Date.now(),
): Promise<void> {
	const row = await campaignRow(db, workspaceId, id);
	if (row.status !== 'draft' && row.status !== 'scheduled') {
		throw new Conflict(`Campaign ${id} is ${row.status}: only a draft or a scheduled campaign can be sent.`);
	}
	await assertCanMail(db, row);
	await checkWhatsappCampaign(env, db, workspaceId, row, 'send', now);
	const at = sendAt === undefined ? now : instantOf(sendAt, timeZone);
	if (at <= now) {
		await startSending(env, db, row, now);
		return;
	}
	const scheduled = await db
		.update(campaigns)
		.set({ status: 'scheduled', sendAt: at, updatedAt: now })
		.where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, row.status)))
		.returning({ id: campaigns.id });
	if (scheduled.length === 0) throw new Conflict(`Campaign ${id} changed state meanwhile; try again.`);
}

/** A `sendAt` as an instant: a local time is read in the workspace time zone. */
function instantOf(sendAt: string, timeZone: string): number {
	const local = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})$/.exec(sendAt);
	if (!local) return Date.parse(sendAt);
	const [, date, hours, minutes] = local as unknown as [string, string, string, string];
	// A real day and time only: Date.parse would roll 2030-02-30 over into March.
	const day = Date.parse(`${date}T00:00:00Z`);
	const real =
		!Number.isNaN(day) &&
		new Date(day).toISOString().slice(0, 10) === date &&
		Number(hours) < 24 &&
		Number(minutes) < 60;
	if (!real) throw new Invalid('is not a real date and time', { field: ['sendAt'] });
	return zonedInstant(timeZone, date, Number(hours) * 60 + Number(minutes));
}

/**
 * Cancels a scheduled or sending campaign: what is not claimed yet is never sent (a batch stops at its next
 * claim; the few messages already claimed finish). A 409 for a campaign in any other state.
 */
export async function cancelCampaign(db: Database, workspaceId: string, id: string, now = Date.now()) {
	const row = await campaignRow(db, workspaceId, id);
	if (row.status !== 'scheduled' && row.status !== 'sending') {
		throw new Conflict(`Campaign ${id} is ${row.status}: only a scheduled or a sending campaign can be cancelled.`);
	}
	const results = await runBatch(db, [
		db
			.update(campaigns)
			.set({ status: 'cancelled', finishedAt: now, updatedAt: now })
			.where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId), eq(campaigns.status, row.status))),
		sql`UPDATE campaign_recipients SET status = 'cancelled'
			WHERE campaign_id = ${id} AND status = 'pending'
			AND EXISTS (SELECT 1 FROM campaigns WHERE id = ${id} AND status = 'cancelled')`,
	]);
	if ((results[0]?.meta.changes ?? 0) === 0) throw new Conflict(`Campaign ${id} changed state meanwhile; try again.`);
}
