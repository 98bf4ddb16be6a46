import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` writes a new SQL migration into migrations/ from src/db/schema.ts;
// wrangler applies them (`wrangler d1 migrations apply DB`), ignoring drizzle's meta/ folder.
export default defineConfig({
	dialect: 'sqlite',
	schema: './src/db/schema.ts',
	out: './migrations',
});
