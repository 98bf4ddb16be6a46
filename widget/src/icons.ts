/**
 * The widget's icons, built with DOM calls: markup assigned as a string (`innerHTML`) is a sink a page
 * enforcing Trusted Types refuses, unless it gives the widget a policy of its own.
 */
const SVG = 'http://www.w3.org/2000/svg';

/**
 * An icon of one path `d` in a 24-unit box, hidden from assistive technology (the button holding it has a
 * label); `attributes` go on the <svg>.
 *
 * @example button.replaceChildren(icon('M4 3h16…', { width: '20', height: '20' }));
 */
export function icon(d: string, attributes: Record<string, string> = {}): SVGSVGElement {
	const svg = document.createElementNS(SVG, 'svg');
	const path = document.createElementNS(SVG, 'path');
	path.setAttribute('d', d);
	for (const [name, value] of Object.entries({ viewBox: '0 0 24 24', 'aria-hidden': 'true', ...attributes })) {
		svg.setAttribute(name, value);
	}
	svg.append(path);
	return svg;
}
