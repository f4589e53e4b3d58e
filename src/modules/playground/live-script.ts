// The playground's one script, served as a static file and allowed by its hash (with the
// integrity attribute): forms marked "live" post in the background, and a long poll adds new
// and edited messages to the conversation. Without it every form still posts and redirects.
import { hash } from 'node:crypto';

export const LIVE_SCRIPT = `'use strict';
(function () {
  var log = document.getElementById('log');
  var status = document.getElementById('status');
  if (!log) return;
  var cursor = log.getAttribute('data-cursor');
  var query = log.getAttribute('data-query');
  function bottom() { log.lastElementChild && log.lastElementChild.scrollIntoView({ block: 'end' }); }
  function apply(items) {
    items.forEach(function (item) {
      var old = document.getElementById(item.id);
      if (old && old.getAttribute('data-version') === item.version) return;
      var box = document.createElement('ol');
      box.innerHTML = item.html;
      var fresh = box.firstElementChild;
      if (!fresh) return;
      if (old) old.replaceWith(fresh); else log.appendChild(fresh);
    });
    if (items.length > 0) bottom();
  }
  var polling = false;
  function poll() {
    polling = true;
    fetch('updates?' + query + '&after=' + cursor, { headers: { accept: 'application/json' } })
      .then(function (res) { if (!res.ok) throw new Error(String(res.status)); return res.json(); })
      .then(function (body) { cursor = body.cursor; apply(body.items); if (body.ended) polling = false; else poll(); })
      .catch(function () { setTimeout(poll, 2000); });
  }
  // A session has one live request: another tab's ended this one's, so this tab waits until it is
  // looked at again rather than take it back at once (two tabs would end each other's in turn).
  function resume() { if (!polling && !document.hidden) poll(); }
  document.addEventListener('visibilitychange', resume);
  window.addEventListener('focus', resume);
  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('live')) return;
    e.preventDefault();
    var body = new URLSearchParams(new FormData(form));
    fetch(form.action, { method: 'POST', body: body, headers: { 'x-playground-live': '1' } })
      .then(function (res) { if (!res.ok) throw new Error(String(res.status)); return res.json(); })
      .then(function (answer) {
        status.textContent = answer.notice || '';
        var text = form.querySelector('input[name=text]');
        if (text && !answer.notice) { text.value = ''; text.focus(); }
      })
      .catch(function () { form.submit(); });
  });
  bottom();
  poll();
})();
`;

/** The CSP source and the integrity attribute: both the script's sha256. */
export const LIVE_HASH = `sha256-${hash('sha256', LIVE_SCRIPT, 'base64')}`;
