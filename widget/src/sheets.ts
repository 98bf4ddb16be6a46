/**
 * Styles the widget's shadow root with nothing a strict Content-Security-Policy refuses: a `<style>` element
 * and a `style` attribute are both inline styles to it, which such a site would have to allow for every
 * script on its pages (`style-src 'unsafe-inline'`). Where the browser builds stylesheets in script, the shadow
 * root adopts them, which no policy restricts; elsewhere (Safari before 16.4, Firefox before 101) it links the
 * same rules as a file of the widget's own origin, which `style-src <widget origin>` allows.
 */

/**
 * Adds `css` to the stylesheets `root` has adopted, after the ones before it (the launcher's, then the
 * panel's); false where the browser cannot: then link the same rules' file instead (`linkStylesheet`).
 */
export function adopt(root: ShadowRoot, css: string): boolean {
	if (!('adoptedStyleSheets' in root)) return false;
	const sheet = new CSSStyleSheet();
	sheet.replaceSync(css);
	root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
	return true;
}

/**
 * Links the stylesheet file `href` into `root`, after those linked before it, and keeps `shown` hidden until
 * it has loaded: unstyled, the launcher would be a bare button at the top of the page, and the panel a block
 * across it.
 */
export function linkStylesheet(root: ShadowRoot, href: string, shown: HTMLElement): void {
	const link = document.createElement('link');
	link.rel = 'stylesheet';
	link.href = href;
	shown.hidden = true;
	link.addEventListener('load', () => {
		shown.hidden = false;
	});
	root.append(link);
}
