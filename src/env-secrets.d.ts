// Secrets are not in wrangler.toml, so `npm run types` (which rewrites worker-configuration.d.ts from it)
// cannot declare them: they are declared here and merged into the generated Env (both of its names). Set
// them with `wrangler secret put NAME`; locally `npm run dev` writes them into .dev.vars.
interface ParleySecrets {
	/** Signs visitor sessions and derives identity secrets: at least 32 bytes (src/auth/secrets.ts). */
	PARLEY_SECRET: string;
}
interface Env extends ParleySecrets {}
declare namespace Cloudflare {
	interface Env extends ParleySecrets {}
}
