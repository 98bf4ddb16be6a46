/**
 * A workspace's inbound addresses (e.g. support@its-domain): a mail Email Routing hands the Worker for one of
 * them starts a conversation in that workspace. An address belongs to one workspace across the deployment,
 * since it is how a mail finds its workspace: adding one another workspace has is a 409.
 */
import { z } from '@hono/zod-openapi';
import { and, asc, eq } from 'drizzle-orm';
import { parseReplyLocalPart } from '../../../auth/mail-reply-token';
import type { Database } from '../../../db/client';
import { emailAddresses } from '../../../db/schema';
import { normalAddress, splitAddress } from '../../../engines/mail/headers';
import { Conflict, Invalid, NotFound } from '../../../lib/errors';
import { iso, newId } from '../../../lib/ids';
import { emailAddress } from '../../../model/email-address';

export const MAX_INBOUND_ADDRESSES = 20;

export const inboundAddressSchema = z
	.object({
		id: z.string().openapi({ description: 'The inbound address id.', example: 'mad_01JD3Q8Z6Y2V7K1N4M5P6R7S8T' }),
		address: z.string().openapi({ description: 'Lower-case.', example: 'support@acme.example' }),
		createdAt: z.string().openapi({ description: 'When it was added (ISO 8601).' }),
	})
	.openapi('InboundAddress');

export const newInboundAddressSchema = z
	.strictObject({
		address: emailAddress().openapi({
			description: 'An address on a domain whose Email Routing sends mail to this Worker.',
		}),
	})
	.openapi('NewInboundAddress');

type AddressRow = typeof emailAddresses.$inferSelect;

function view(row: AddressRow): z.infer<typeof inboundAddressSchema> {
	return { id: row.id, address: row.address, createdAt: iso(row.createdAt) };
}

/** The workspace's inbound addresses, oldest first. */
export async function listInboundAddresses(db: Database, workspaceId: string) {
	const rows = await db
		.select()
		.from(emailAddresses)
		.where(eq(emailAddresses.workspaceId, workspaceId))
		.orderBy(asc(emailAddresses.createdAt), asc(emailAddresses.id));
	return rows.map(view);
}

/**
 * Adds an inbound address. `origin` is the API's origin the admin reached it at: the links of the files the
 * Worker stores from mail to this address are made from it (the `email()` handler has no request of its own).
 */
export async function addInboundAddress(
	db: Database,
	workspaceId: string,
	input: z.infer<typeof newInboundAddressSchema>,
	origin: string,
	now = Date.now(),
) {
	const address = normalAddress(input.address);
	const local = splitAddress(address)?.local ?? '';
	// Reply addresses are Parley's own: an inbound address shaped like one could never receive.
	if (parseReplyLocalPart(local) !== null || local.startsWith('reply+')) {
		throw new Invalid('`reply+…` addresses are the reply addresses of conversations; choose another.', {
			field: ['address'],
		});
	}
	const existing = await listInboundAddresses(db, workspaceId);
	if (existing.length >= MAX_INBOUND_ADDRESSES) {
		throw new Invalid(`A workspace may have at most ${MAX_INBOUND_ADDRESSES} inbound addresses.`);
	}
	const row: AddressRow = { id: newId('mad', now), workspaceId, address, origin, createdAt: now };
	// The unique index decides, so two workspaces adding the same address at once cannot both have it.
	const inserted = await db
		.insert(emailAddresses)
		.values(row)
		.onConflictDoNothing()
		.returning({ id: emailAddresses.id });
	if (inserted.length === 0) throw new Conflict(`${address} already receives mail for a workspace.`);
	return view(row);
}

/** Removes one of the workspace's inbound addresses: mail to it is rejected from then on. */
export async function removeInboundAddress(db: Database, workspaceId: string, id: string): Promise<void> {
	const removed = await db
		.delete(emailAddresses)
		.where(and(eq(emailAddresses.workspaceId, workspaceId), eq(emailAddresses.id, id)))
		.returning({ id: emailAddresses.id });
	if (removed.length === 0) throw new NotFound(`Inbound address ${id} not found.`);
}

/**
 * The inbound address a recipient is: exactly, else without its subaddress (`support+billing@x` is
 * `support@x`, as Gmail and Fastmail deliver it). Null when no workspace has it.
 */
export async function findInboundAddress(db: Database, recipient: string): Promise<AddressRow | null> {
	const address = normalAddress(recipient);
	const exact = await db.select().from(emailAddresses).where(eq(emailAddresses.address, address)).get();
	if (exact) return exact;
	const parts = splitAddress(address);
	const plus = parts?.local.indexOf('+') ?? -1;
	if (!parts || plus <= 0) return null;
	const base = `${parts.local.slice(0, plus)}@${parts.domain}`;
	return (await db.select().from(emailAddresses).where(eq(emailAddresses.address, base)).get()) ?? null;
}

/** The origin the workspace's attachments are linked from: its first address's that has one. */
export async function workspaceOrigin(db: Database, workspaceId: string): Promise<string | null> {
	const rows = await db
		.select({ origin: emailAddresses.origin })
		.from(emailAddresses)
		.where(eq(emailAddresses.workspaceId, workspaceId))
		.orderBy(asc(emailAddresses.createdAt));
	return rows.find((row) => row.origin)?.origin ?? null;
}
