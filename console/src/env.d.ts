declare module '*.css';

declare module 'virtual:step-schemas' {
	/** JSON Schemas by name, cut from docs/openapi.json (console/vite.config.ts). */
	const schemas: Record<string, import('./pages/builder/schema').JsonSchema>;
	export default schemas;
}
