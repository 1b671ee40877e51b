import http, { type IncomingHttpHeaders } from 'node:http';

export type Delivery = { headers: IncomingHttpHeaders; body: any };

/** A webhook receiver on loopback that keeps every JSON delivery, in order. */
export async function webhookReceiver(): Promise<{ url: string; received: Delivery[]; close: () => Promise<void> }> {
  const received: Delivery[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(body) });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) };
}
