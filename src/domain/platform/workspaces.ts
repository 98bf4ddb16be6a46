/**
 * A new workspace: placed on the emptiest shard in the directory first (src/db/shards.ts), then its row written
 * there. The directory's placement comes first so that nothing of the workspace is ever written where the
 * directory does not send its reads; a placement whose row was never written names a workspace with nothing.
 */
import { openDatabase } from '../../db/client';
import { workspaces } from '../../db/schema';
import { emptiestShard, placeWorkspace, shardBinding } from '../../db/shards';
import { newId } from '../../lib/ids';

export interface NewWorkspace {
	name: string;
	slug: string;
}

/** Creates the workspace on the emptiest shard; returns its id and the shard it is on. */
export async function createWorkspace(
	env: Env,
	input: NewWorkspace,
	now = Date.now(),
): Promise<{ workspaceId: string; shard: string }> {
	const workspaceId = newId('ws', now);
	const shard = await emptiestShard(env);
	await placeWorkspace(env, workspaceId, shard, now);
	await openDatabase(shardBinding(env, shard))
		.insert(workspaces)
		.values({ id: workspaceId, slug: input.slug, name: input.name, createdAt: now });
	return { workspaceId, shard };
}
