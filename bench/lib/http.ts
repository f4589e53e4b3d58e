// A small JSON client over node:http for the scripted cases and bench:delivery (autocannon drives
// the load cases). Traffic goes to 127.0.0.1 only.
import http from 'node:http';

/** Keep-alive, no socket limit: every request in flight gets its own socket, reused afterwards. */
export const keepAlive = new http.Agent({ keepAlive: true, maxSockets: Infinity });

export interface Reply {
  status: number;
  text: string;
}

export interface CallOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  /** Called with the request, e.g. to abort it when a case stops. */
  onRequest?: (req: http.ClientRequest) => void;
  /** The request fails when the server stays silent this long (default 60 s, over the 50 s long poll). */
  timeoutMs?: number;
}

export function call(port: number, path: string, o: CallOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: o.method ?? (payload === undefined ? 'GET' : 'POST'),
        agent: keepAlive,
        headers: { ...o.headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(o.timeoutMs ?? 60_000, () => req.destroy(new Error(`${path}: no answer in time`)));
    o.onRequest?.(req);
    req.end(payload);
  });
}

/** The JSON body of a 2xx reply; anything else is an error naming the path. */
export async function callJson<T>(port: number, path: string, o: CallOptions = {}): Promise<T> {
  const r = await call(port, path, o);
  if (r.status < 200 || r.status > 299) throw new Error(`${path}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return JSON.parse(r.text) as T;
}

export const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Long polls the server holds now (its long_polls gauge on /metrics). */
export async function heldPolls(port: number): Promise<number> {
  const r = await call(port, '/metrics');
  return Number(/^long_polls (\d+)/m.exec(r.text)?.[1] ?? 0);
}
