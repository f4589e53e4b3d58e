// The API reference at /docs: the OpenAPI document rendered on the server as one plain,
// accessible page (landmarks, ordered headings, tables, no script), with the same strict headers
// as the other pages.
import { Html, html, Stylesheet, type Part } from './pages/html.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const style = new Stylesheet(`
:root { font: 16px/1.5 system-ui, sans-serif; color: #1b1f24; background: #fff; }
@media (prefers-color-scheme: dark) {
  :root { color: #e6e8eb; background: #14171a; }
  a { color: #8cc4ff; }
  pre, th { background: #22272e; }
  .method { color: #14171a; }
}
body { margin: 0 auto; max-width: 62rem; padding: 1rem; }
header p, .summary { margin: .25rem 0 1rem; }
nav ul { columns: 14rem; padding-left: 1.2rem; }
h2 { border-bottom: 2px solid #8a939d; margin-top: 2.5rem; }
h3 { font-size: 1.05rem; margin: 2rem 0 .25rem; overflow-wrap: anywhere; }
h4 { font-size: .95rem; margin: 1rem 0 .25rem; }
.method { display: inline-block; min-width: 3.4rem; padding: 0 .3rem; border-radius: .25rem; background: #0b5cad; color: #fff; font: 700 .8rem/1.6 ui-monospace, monospace; text-align: center; }
.method-get { background: #1f6f43; }
.method-post { background: #0b5cad; }
.deprecated { color: #a11d1d; font-weight: 700; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; font-size: .9rem; }
th, td { border: 1px solid #8a939d; padding: .25rem .4rem; text-align: left; vertical-align: top; }
th { background: #eef1f4; }
pre { background: #eef1f4; padding: .6rem; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .85rem; border-radius: .25rem; }
th, td, td code { overflow-wrap: anywhere; }
code { font-family: ui-monospace, monospace; }
`);

interface Operation {
  method: string;
  path: string;
  op: Json;
}

const anchor = (o: Operation): string => `${o.method}-${o.path}`.replace(/[^A-Za-z0-9]+/g, '-');
const json = (v: unknown): string => JSON.stringify(v, null, 2);

function typeOf(schema: unknown): string {
  if (!isObject(schema)) return '';
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(typeOf).join(' or ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  return text(schema.type) || 'any';
}

function parameters(op: Json): Html | false {
  const list = Array.isArray(op.parameters) ? op.parameters.filter(isObject) : [];
  if (list.length === 0) return false;
  return html`<h4>Parameters</h4>
    <table>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">In</th>
          <th scope="col">Type</th>
          <th scope="col">Required</th>
          <th scope="col">Example</th>
        </tr>
      </thead>
      <tbody>
        ${list.map(
          (p) =>
            html`<tr>
              <td><code>${text(p.name)}</code></td>
              <td>${text(p.in)}</td>
              <td>${typeOf(p.schema)}</td>
              <td>${p.required === true ? 'yes' : 'no'}</td>
              <td><code>${p.example === undefined ? '' : JSON.stringify(p.example)}</code></td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

/** `<h4>` and example blocks of each media type in a request body or response. */
function examples(title: string, content: unknown): Part[] {
  if (!isObject(content)) return [html`<h4>${title}</h4>`];
  return Object.entries(content).map(
    ([type, media]) =>
      html`<h4>${title} <small>(${type})</small></h4>
        <pre><code>${isObject(media) ? json(media.example) : ''}</code></pre>`,
  );
}

function security(op: Json): string {
  const alternatives = Array.isArray(op.security) ? op.security.filter(isObject) : [];
  if (alternatives.length === 0) return 'none';
  return alternatives.map((a) => Object.keys(a).join(' + ')).join(', or ');
}

function operation(o: Operation): Html {
  const { op } = o;
  const responses = isObject(op.responses) ? Object.entries(op.responses) : [];
  return html`<section aria-labelledby="${anchor(o)}">
    <h3 id="${anchor(o)}">
      <span class="method method-${o.method}">${o.method.toUpperCase()}</span> <code>${o.path}</code>
    </h3>
    <p class="summary">
      ${text(op.summary)} ${op.deprecated === true && html`<span class="deprecated">(deprecated)</span>`}
    </p>
    ${text(op.description) !== '' && html`<p>${text(op.description)}</p>`}
    <p>Authentication: ${security(op)}</p>
    ${parameters(op)} ${isObject(op.requestBody) && examples('Request body', op.requestBody.content)}
    ${responses.map(([code, r]) => examples(`Response ${code}`, isObject(r) ? r.content : undefined))}
  </section>`;
}

/** The page, from the document `/openapi.json` serves. */
export function docsPage(document: unknown): { headers: Record<string, string>; body: string } {
  const doc = isObject(document) ? document : {};
  const info = isObject(doc.info) ? doc.info : {};
  const ops: Operation[] = Object.entries(isObject(doc.paths) ? doc.paths : {}).flatMap(([path, item]) =>
    Object.entries(isObject(item) ? item : {}).flatMap(([method, op]) => (isObject(op) ? [{ method, path, op }] : [])),
  );
  const tags = [...new Set(ops.map((o) => (Array.isArray(o.op.tags) ? text(o.op.tags[0]) : '') || 'Other'))];
  const inTag = (tag: string) =>
    ops.filter((o) => ((Array.isArray(o.op.tags) ? text(o.op.tags[0]) : '') || 'Other') === tag);
  const slug = (tag: string) => `tag-${tag.replace(/[^A-Za-z0-9]+/g, '-')}`;
  const body = html`<header>
      <h1>${text(info.title)}</h1>
      <p>${text(info.description)}</p>
      <p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
    </header>
    <nav aria-label="Sections">
      <ul>
        ${tags.map((tag) => html`<li><a href="#${slug(tag)}">${tag}</a></li>`)}
      </ul>
    </nav>
    <main>
      ${tags.map(
        (tag) =>
          html`<section aria-labelledby="${slug(tag)}">
            <h2 id="${slug(tag)}">${tag}</h2>
            ${inTag(tag).map(operation)}
          </section>`,
      )}
    </main>`;
  return { headers: style.headers(), body: style.document('API reference', body) };
}
