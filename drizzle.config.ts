import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` writes a new SQL migration into migrations/ from src/db/schema/;
// wrangler applies them (`wrangler d1 migrations apply DB`), ignoring drizzle's meta/ folder.
export default defineConfig({
	dialect: 'sqlite',
	schema: './src/db/schema/index.ts',
	out: './migrations',
});
