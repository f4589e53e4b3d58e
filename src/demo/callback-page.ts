// The demo client's pages: who signed in through the Demo App, or why it did not work.
import { html, Stylesheet, type Html } from '../http/pages/html.js';

const SHEET = new Stylesheet(`
:root{color-scheme:light dark;--bg:#f2f4f7;--card:#fff;--text:#16181d;--muted:#4b5260;--line:#e1e4ea;--accent:#1f4fd1}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--card:#1a1d23;--text:#eef0f4;--muted:#b3b9c5;--line:#2e333c;--accent:#8aadff}}
body{margin:0;padding:24px 16px;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,sans-serif}
main{max-width:520px;margin:0 auto;background:var(--card);border:1px solid var(--line);border-radius:16px;padding:24px}
h1{margin:0 0 12px;font-size:22px}
p{margin:0 0 12px}
dl{margin:0 0 16px}
dt{color:var(--muted);font-size:14px}
dd{margin:0 0 8px;font-weight:600;overflow-wrap:anywhere}
ol{margin:0 0 12px;padding-left:20px;color:var(--muted)}
a{color:var(--accent)}
`);

export const demoPageHeaders = (): Record<string, string> => SHEET.headers();

const STEPS = html`<ol>
  <li>/demo/login made a PKCE verifier and opened the authorize page with its S256 challenge.</li>
  <li>You pressed Allow; the page redirected here with a code.</li>
  <li>
    This page exchanged the code at POST /openapi/oauth2/access_token with the Demo App's credentials and the verifier.
  </li>
  <li>It read you with POST /openapi/user/info, the access token in the access_token header.</li>
</ol>`;

const again = html`<p><a href="/demo/login">Sign in with the Demo App again</a></p>`;

const page = (title: string, body: Html): string => SHEET.document(title, html`<main>${body}</main>`);

export const signedInPage = (user: { name: string; wallet_address: string; uid: string }): string =>
  page(
    'Signed in with the Demo App',
    html`<h1>Signed in as ${user.name}</h1>
      <dl>
        <dt>Name</dt>
        <dd>${user.name}</dd>
        <dt>Wallet</dt>
        <dd>${user.wallet_address}</dd>
        <dt>User ID</dt>
        <dd>${user.uid}</dd>
      </dl>
      <p>How the Demo App got here, as any client would:</p>
      ${STEPS}${again}`,
  );

export const problemPage = (heading: string, message: string): string =>
  page(
    heading,
    html`<h1>${heading}</h1>
      <p>${message}</p>
      ${again}`,
  );
