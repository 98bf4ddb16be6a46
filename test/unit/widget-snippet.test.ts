import { describe, expect, it } from 'vitest';
import { widgetSnippet } from '../../src/domain/widget/snippet';

describe('widgetSnippet', () => {
	it('stays one script element whatever the values hold', () => {
		const snippet = widgetSnippet('https://chat.example.com/</script><script>alert(1)//', 'ws_</script>');
		expect(snippet.match(/<\/script>/g)).toHaveLength(1);
		expect(snippet.endsWith('</script>')).toBe(true);
		expect(snippet).toContain('\\u003c/script>');
	});

	it('is under 600 bytes for a real workspace id', () => {
		const snippet = widgetSnippet('https://chat.example.com', 'ws_01JD3Q8Z6Y2V7K1N4M5P6R7S8T');
		expect(new TextEncoder().encode(snippet).byteLength).toBeLessThan(600);
	});
});
