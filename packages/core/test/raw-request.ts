/**
 * An HTTP request with exactly the headers a test gives (Host, Origin, Sec-Fetch-Site included, which fetch does
 * not let a test choose): how the kit's tests play a browser page on another origin or a rebound host name.
 */
import { request as httpRequest } from 'node:http';

/** The answer to a {@link rawRequest}. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** `method path` to 127.0.0.1:`port` with exactly `headers`, and `body` when given. */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A form POST (`application/x-www-form-urlencoded`) with exactly `headers`. */
export function rawFormPost(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<RawAnswer> {
  return rawRequest(
    port,
    'POST',
    path,
    { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  );
}
