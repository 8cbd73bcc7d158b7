/** Small node:http helpers shared by the demo LIS's routes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorBody } from '../lib/lis/schemas';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
  }
}

/** The whole request body as UTF-8, refusing more than `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
      failed = true;
    });
  });
}

/** The first value of a request header, or null. */
export function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

/** The media type of the request, lower case, without parameters. */
export function mediaType(req: IncomingMessage): string {
  return (header(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

export function errorBody(message: string, errors: string[] = []): ErrorBody {
  return { message, errors };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

export function send(res: ServerResponse, status: number, contentType: string, text: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}
