// The widget's text colors against their backgrounds, in both themes, by WCAG 2.x's formula: every pair keeps
// AA (4.5:1 for text). The colors and opacities are read from the chat's own stylesheet, so a change there that
// loses contrast fails here.
import { describe, expect, it } from 'vitest';
import { DEFAULT_WIDGET_SETTINGS } from '../../src/domain/widget/settings';
import { DARK, LIGHT_ERR, PANEL_STYLE } from '../../widget/src/chat/styles';

type Rgb = [number, number, number];

function rgb(hex: string): Rgb {
	const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, (d) => d + d) : hex;
	return [1, 3, 5].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as Rgb;
}

/** `top` at `alpha` over `bottom`: what the eye sees of a translucent color or an element with opacity. */
function over(top: Rgb, alpha: number, bottom: Rgb): Rgb {
	return top.map((c, i) => c * alpha + (bottom[i] as number) * (1 - alpha)) as Rgb;
}

function luminance(color: Rgb): number {
	const [r, g, b] = color.map((c) => {
		const s = c / 255;
		return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
	}) as Rgb;
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: Rgb, b: Rgb): number {
	const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
	return (light + 0.05) / (dark + 0.05);
}

/** A number the stylesheet gives `property` in the rule for `selector`. */
function styleNumber(selector: string, property: string): number {
	const rule = PANEL_STYLE.split('\n').find((line) => line.startsWith(`${selector}{`));
	const value = rule && new RegExp(`${property}:[^;}]*?([\\d.]+)\\)?(?:;|})`).exec(rule)?.[1];
	if (!value) throw new Error(`no ${property} for ${selector}`);
	return Number(value);
}

describe('WCAG contrast of the widget', () => {
	it('computes the formula (black on white is 21:1, a color on itself 1:1)', () => {
		expect(contrast(rgb('#000'), rgb('#fff'))).toBeCloseTo(21, 5);
		expect(contrast(rgb('#1f6feb'), rgb('#1f6feb'))).toBe(1);
	});

	const themes = {
		light: { bg: DEFAULT_WIDGET_SETTINGS.backgroundColor, fg: DEFAULT_WIDGET_SETTINGS.textColor, err: LIGHT_ERR },
		dark: DARK,
	};
	for (const [theme, colors] of Object.entries(themes)) {
		it(`keeps AA for every text in the ${theme} theme`, () => {
			const bg = rgb(colors.bg);
			const fg = rgb(colors.fg);
			const bubble = over([127, 127, 127], styleNumber('.msg .body', 'background'), bg);
			const pairs: Record<string, [Rgb, Rgb]> = {
				text: [fg, bg],
				'a team message': [fg, bubble],
				'an author label': [over(fg, styleNumber('.msg .author,.msg .note', 'opacity'), bg), bg],
				'who is typing': [over(fg, styleNumber('.typing', 'opacity'), bg), bg],
				'a note line': [over(fg, styleNumber('.note-box', 'opacity'), bg), bg],
				'an error': [rgb(colors.err), bg],
				'a field': [fg, bg],
			};
			for (const [what, [text, background]] of Object.entries(pairs)) {
				expect(contrast(text, background), `${theme}: ${what}`).toBeGreaterThanOrEqual(4.5);
			}
		});
	}
});
