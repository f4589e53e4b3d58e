// The pages' one look: the palette every page family shares (light and dark; text at least 4.5:1
// on its background, control borders at least 3:1), the base stylesheet of the developer site, the
// operator console and the playground, to which a family adds its own rules, and the frame of
// their pages (a top bar with the family's name and who is signed in, then the main content).
import { CSRF_FIELD } from './csrf.js';
import { html, Stylesheet, table, type Html, type Part } from './html.js';
import type { Lang } from './lang.js';

/** Every page family's palette (light and dark) and resets; the authorize page builds on it too. */
export const BASE_CSS = `
:root{color-scheme:light dark;--bg:#f2f4f7;--card:#fff;--text:#16181d;--muted:#4b5260;--line:#e1e4ea;--control:#7c8494;--accent:#1f4fd1;--accent-hover:#1a43b3;--on-accent:#fff;--soft:#eaf0fd;--danger:#b42318;--danger-soft:#fdecea;--ok:#067647;--ok-soft:#e7f6ec;--warn:#93370d;--warn-soft:#fef3e2;--focus:#1f4fd1;--code:#f5f6f8}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--card:#1a1d23;--text:#eef0f4;--muted:#b3b9c5;--line:#2e333c;--control:#7d8594;--accent:#8aadff;--accent-hover:#a9c2ff;--on-accent:#0b1020;--soft:#222a3d;--danger:#ff9b91;--danger-soft:#3a2220;--ok:#75e0a7;--ok-soft:#17301f;--warn:#fdb022;--warn-soft:#33240e;--focus:#a9c2ff;--code:#12151a}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
`;

const SITE_CSS = `${BASE_CSS}body{margin:0;background:var(--bg);color:var(--text);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--accent)}
.top{background:var(--card);border-bottom:1px solid var(--line)}
.top .in{max-width:1040px;margin:0 auto;padding:14px 20px;display:flex;align-items:center;justify-content:space-between;gap:16px}
.brand{font-weight:700;font-size:17px;color:var(--text);text-decoration:none}
.brand span{color:var(--muted);font-weight:500}
.who{color:var(--muted);font-size:14px}
main{max-width:1040px;margin:0 auto;padding:24px 20px 48px}
h1{margin:0 0 4px;font-size:26px;line-height:1.25;overflow-wrap:anywhere}
h2{margin:0 0 12px;font-size:17px}
h3{margin:16px 0 8px;font-size:14px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
p{margin:0 0 12px}
.sub{color:var(--muted);margin:0 0 20px}
.crumb{font-size:14px;margin:0 0 8px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px;align-items:start}
.card{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:20px;box-shadow:0 1px 2px rgba(16,24,40,.05)}
.card+.card{margin-top:16px}
.grid .card+.card{margin-top:0}
.grid+.card,h1+.card{margin-top:16px}
.head{display:flex;align-items:center;gap:14px;margin:0 0 18px}
.badge{flex:none;width:48px;height:48px;border-radius:12px;display:grid;place-items:center;background:var(--soft);color:var(--accent);font-size:22px;font-weight:700;overflow:hidden}
.badge img{width:100%;height:100%;object-fit:cover}
table{width:100%;border-collapse:collapse;font-size:14px}
th,td{text-align:left;padding:9px 8px;border-top:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}
th{color:var(--muted);font-weight:600;border-top:0;white-space:nowrap}
dl{margin:0}
.row{display:flex;justify-content:space-between;gap:16px;padding:9px 0;border-top:1px solid var(--line)}
.row:first-child{border-top:0}
dt{flex:none;color:var(--muted)}
dd{margin:0;text-align:right;min-width:0;overflow-wrap:anywhere}
code{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border:1px solid var(--line);border-radius:6px;padding:1px 6px;overflow-wrap:anywhere}
.secret{display:block;padding:10px 12px;font-size:14px;margin:4px 0 12px;user-select:all}
.pill{display:inline-block;white-space:nowrap;padding:1px 10px;border-radius:99px;font-size:13px;font-weight:600;background:var(--soft);color:var(--accent)}
.pill.ok{background:var(--ok-soft);color:var(--ok)}
.pill.bad{background:var(--danger-soft);color:var(--danger)}
.pill.wait{background:var(--warn-soft);color:var(--warn)}
.note{padding:12px 14px;border-radius:10px;background:var(--soft);margin:0 0 16px}
.note.ok{background:var(--ok-soft)}
.note.bad{background:var(--danger-soft);color:var(--danger)}
.note.warn{background:var(--warn-soft)}
.fine{font-size:13px;color:var(--muted);margin:8px 0 0}
form{margin:0}
form+form{margin-top:12px}
label{display:block;font-weight:600;font-size:14px;margin:10px 0 4px}
input[type=text],input[type=url],textarea,select{width:100%;font:inherit;color:var(--text);background:var(--card);border:1px solid var(--control);border-radius:8px;padding:8px 10px}
textarea{min-height:84px;resize:vertical}
fieldset{border:0;margin:10px 0 0;padding:0}
legend{font-weight:600;font-size:14px;margin:0 0 4px;padding:0}
.choice{display:flex;gap:8px;align-items:center;font-weight:400;margin:4px 0}
.actions{display:flex;gap:10px;flex-wrap:wrap;margin-top:14px}
.actions form .actions,.actions form+form{margin-top:0}
button{min-height:40px;padding:8px 16px;border-radius:9px;border:1px solid transparent;font:inherit;font-weight:600;cursor:pointer}
.primary{background:var(--accent);color:var(--on-accent)}
.primary:hover{background:var(--accent-hover)}
.secondary{background:var(--card);color:var(--text);border-color:var(--control)}
.secondary:hover{background:var(--soft)}
.danger{background:var(--card);color:var(--danger);border-color:var(--danger)}
.inline{display:inline}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
@media (max-width:520px){.row{display:block}dd{text-align:left}main{padding:16px 12px 32px}}
`;

/** A family's stylesheet: the shared rules, then its own. Its pages show avatars and follow Accept-Language. */
export const siteSheet = (own = ''): Stylesheet => new Stylesheet(SITE_CSS + own, { images: true, languages: true });

export interface Frame {
  lang: Lang;
  title: string;
  /** The family's home page, which the brand links to, and its name beside "Open Platform". */
  home: string;
  brand: string;
  /** Who is signed in (and a sign-out form), when someone is. */
  who: Part;
  main: Part;
  /** After the main content: a script element. */
  after?: Part;
}

/** A page of the family in its frame. */
export function framedPage(sheet: Stylesheet, f: Frame): string {
  return sheet.document(
    f.title,
    html`<header class="top">
        <div class="in">
          <a class="brand" href="${f.home}">Open Platform <span>${f.brand}</span></a>
          ${f.who}
        </div>
      </header>
      <main>${f.main}</main>
      ${f.after}`,
    f.lang,
  );
}

/** A time as UTC `YYYY-MM-DD HH:MM:SS`. */
export { formatDateTime as when } from '../../lib/clock.js';

/** A row of a definition list. */
export const row = (label: string, value: Part): Html =>
  html`<div class="row">
    <dt>${label}</dt>
    <dd>${value}</dd>
  </div>`;

export const submitButton = (label: string, style = 'primary'): Html =>
  html`<button type="submit" class="${style}">${label}</button>`;

/** A POST form with the page's CSRF token. */
export const postForm = (csrf: string, action: string, body: Part, submit: Html): Html =>
  html`<form method="post" action="${action}">
    <input type="hidden" name="${CSRF_FIELD}" value="${csrf}" />
    ${body} ${submit}
  </form>`;

/** A card with a heading that labels it. */
export const card = (id: string, heading: string, body: Part): Html =>
  html`<section class="card" aria-labelledby="${id}">
    <h2 id="${id}">${heading}</h2>
    ${body}
  </section>`;

/** A table of the rows, or the note that there are none. */
export const tableOr = (none: string, headings: readonly string[], rows: readonly (readonly Part[])[]): Html =>
  rows.length === 0 ? html`<p>${none}</p>` : table(headings, rows);

/** A page's heading, then a card that opens with a paragraph. */
export const headedCard = (heading: string, lead: Part, rest: Part): Html =>
  html`<h1>${heading}</h1>
    <section class="card">
      <p>${lead}</p>
      ${rest}
    </section>`;
