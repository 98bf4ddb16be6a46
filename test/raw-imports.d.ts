// Vite's `?raw` imports (a file's text), which the test runner resolves.
declare module '*?raw' {
	const text: string;
	export default text;
}
