// `npm run seed [-- --workspace <slug>]`: prints one JSON line with a workspace id, a fresh admin
// Token V3, the admin's e-mail and a fresh console password, and the local API base URL. Creates the workspace and its admin when missing.
import { parseArgs } from 'node:util';
import { applyMigrations, seedWorkspace } from './local-db.mjs';

const { values } = parseArgs({
	options: {
		workspace: { type: 'string', default: 'demo' },
		port: { type: 'string', default: process.env.PORT ?? '8787' },
	},
});

try {
	await applyMigrations();
	const { workspaceId, token, email, password } = await seedWorkspace({ slug: values.workspace });
	console.log(JSON.stringify({ workspaceId, token, email, password, baseUrl: `http://localhost:${values.port}` }));
} catch (error) {
	console.error(error.message);
	process.exit(1);
}
