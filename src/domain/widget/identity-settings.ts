import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { workspaces } from '../../db/schema';

/**
 * Turns identity verification on, or rotates its secret: the secret is derived from the deployment secret
 * and this version (src/auth/secrets.ts), so bumping the version is the whole rotation and nothing secret is
 * stored. Returns the new version.
 */
export async function rotateIdentitySecret(db: Database, workspaceId: string): Promise<number> {
	const [row] = await db
		.update(workspaces)
		.set({ identitySecretVersion: sql`ABS(COALESCE(${workspaces.identitySecretVersion}, 0)) + 1` })
		.where(eq(workspaces.id, workspaceId))
		.returning({ version: workspaces.identitySecretVersion });
	return row?.version ?? 1;
}

/**
 * Turns verification off. The version is kept, negated, rather than cleared, so that turning it on again
 * issues a secret never used before.
 */
export async function disableIdentitySecret(db: Database, workspaceId: string): Promise<void> {
	await db
		.update(workspaces)
		.set({ identitySecretVersion: sql`-ABS(${workspaces.identitySecretVersion})` })
		.where(eq(workspaces.id, workspaceId));
}

/** Whether a stored version means verification is on (null: never enabled; negative: turned off). */
export function identityVerificationOn(version: number | null): version is number {
	return version !== null && version > 0;
}

/**
 * Whether identity verification is on, and the version of its secret (the secret itself is never shown
 * again): what Settings › Widget says before anyone generates or rotates one.
 */
export async function identityVerificationState(
	db: Database,
	workspaceId: string,
): Promise<{ enabled: boolean; version: number | null }> {
	const row = await db
		.select({ version: workspaces.identitySecretVersion })
		.from(workspaces)
		.where(eq(workspaces.id, workspaceId))
		.get();
	const version = row?.version ?? null;
	return identityVerificationOn(version) ? { enabled: true, version } : { enabled: false, version: null };
}
