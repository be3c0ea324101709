/**
 * Standalone HTTPS server for the simulated perplexity.ai (demo, manual checks, benchmarks).
 *
 *   npm run sim -- --port 8443 --generation B --language fr --scenario short --speed 1 [--no-seed]
 *
 * Point Chromium at it with the flags it prints:
 *   --host-resolver-rules="MAP www.perplexity.ai 127.0.0.1:PORT, MAP perplexity.ai 127.0.0.1:PORT" --ignore-certificate-errors
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type SimOptions, type SimSite, createSimSite } from './site';

export interface SimServerOptions extends SimOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. Default 8443. */
  port?: number;
  /** Use this site instead of creating one from the options. */
  site?: SimSite;
}

export interface SimServer {
  port: number;
  site: SimSite;
  /** Chromium flags that send perplexity.ai to this server. */
  chromiumArgs: string[];
  close(): Promise<void>;
}

/** Creates a throwaway self-signed certificate (default: for www.perplexity.ai) with openssl; also valid for 127.0.0.1. */
export function makeCertificate(names: string[] = ['www.perplexity.ai', 'perplexity.ai']): { key: Buffer; cert: Buffer; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'comet-relay-sim-'));
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2',
        '-keyout', keyPath, '-out', certPath,
        '-subj', `/CN=${names[0]}`,
        '-addext', `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')},IP:127.0.0.1`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') {
      throw new Error('The simulated sites need `openssl` to make their certificates, and it is not on PATH (Debian: apt-get install openssl).');
    }
    throw new Error(`openssl failed to create a certificate: ${e.stderr?.toString().trim() || e.message}`);
  }
  return { key: fs.readFileSync(keyPath), cert: fs.readFileSync(certPath), dir };
}

let simCertificate: { key: Buffer; cert: Buffer } | undefined;

/** The sim servers' certificate, made once a process (every e2e world starts a server: openssl takes 0.15–0.4 s). */
function certificateForSim(): { key: Buffer; cert: Buffer } {
  if (!simCertificate) {
    const { key, cert, dir } = makeCertificate();
    fs.rmSync(dir, { recursive: true, force: true });
    simCertificate = { key, cert };
  }
  return simCertificate;
}

export function chromiumArgsFor(port: number): string[] {
  return [
    `--host-resolver-rules=MAP www.perplexity.ai 127.0.0.1:${port}, MAP perplexity.ai 127.0.0.1:${port}`,
    '--ignore-certificate-errors',
  ];
}

/**
 * The sim's HTTP handler: each request to `site.handle`, a streamed body (the ask stream) written piece by piece as it
 * happens. The page's abort closes the connection, which ends the stream; a stream the sim cuts (`'cut'`) drops the
 * connection with no end, as a network failure does. One place for it: the standalone server and the e2e worlds
 * (tests/support/sim-harness.ts, whose streams reach it through Chromium's network) both serve through it.
 */
export function simRequestHandler(site: SimSite): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const host = (req.headers.host ?? 'www.perplexity.ai').replace(/:\d+$/, '');
      const url = `https://${host}${req.url ?? '/'}`;
      site
        .handle({
          method: req.method ?? 'GET',
          url,
          body: chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined,
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
        })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': r.contentType, ...(r.headers ?? {}) });
          if (r.stream && req.method !== 'HEAD') {
            // Each piece as it happens (the ask stream); the page's abort closes the connection and ends it.
            res.flushHeaders();
            const ended = await r.stream((text) => res.write(text), () => res.destroyed || res.writableEnded);
            if (ended === 'cut') {
              res.destroy();
              return;
            }
          }
          res.end(req.method === 'HEAD' || r.stream ? undefined : r.body);
        })
        .catch((err: unknown) => {
          if (res.headersSent) {
            res.destroy();
            return;
          }
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        });
    });
  };
}

export async function startSimServer(options: SimServerOptions = {}): Promise<SimServer> {
  const site = options.site ?? createSimSite(options);
  const { key, cert } = certificateForSim();
  const server = https.createServer({ key, cert }, simRequestHandler(site));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8443, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    site,
    chromiumArgs: chromiumArgsFor(port),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseArgs(argv: string[]): SimServerOptions {
  const out: SimServerOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const [flag, inline] = a.includes('=') ? (a.split(/=(.*)/s) as [string, string]) : [a, undefined];
    const value = () => inline ?? argv[++i] ?? '';
    switch (flag) {
      case '--port':
        out.port = Number(value());
        break;
      case '--generation':
        out.generation = value().toUpperCase() as 'A' | 'B';
        break;
      case '--scenario':
        out.scenario = value();
        break;
      case '--speed':
        out.speed = Number(value());
        break;
      case '--no-seed':
        out.seedThreads = false;
        break;
      case '--dictation':
        out.dictation = true;
        break;
      case '--variants':
        // e.g. --variants groupedBadges,unlinkedTabs (types.ts PageVariants)
        out.variants = Object.fromEntries(value().split(',').filter(Boolean).map((name) => [name.trim(), true]));
        break;
      case '--layout':
        out.layout = value() as SimServerOptions['layout'];
        break;
      case '--language':
        out.language = value() as SimServerOptions['language'];
        break;
      case '--hooks':
        out.hooks = value() as SimServerOptions['hooks'];
        break;
      case '--help':
      case '-h':
        console.log('usage: npm run sim -- [--port 8443] [--generation A|B] [--language en|fr|ar] [--layout blocks-2026-08|markdown-2026-02|turn-2026-04|mixed-2026-08|sessions-2026-09] [--hooks standard|renamed] [--scenario NAME] [--speed N] [--no-seed] [--dictation] [--variants a,b]');
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${a} (try --help)`);
    }
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const srv = await startSimServer(parseArgs(process.argv.slice(2)));
    console.log(`Simulated perplexity.ai (generation ${srv.site.generation}, language ${srv.site.language}, scenario ${srv.site.scenario}) on https://127.0.0.1:${srv.port}`);
    console.log('Start Chromium with:');
    console.log(`  --host-resolver-rules="MAP www.perplexity.ai 127.0.0.1:${srv.port}, MAP perplexity.ai 127.0.0.1:${srv.port}" --ignore-certificate-errors`);
    console.log('then open https://www.perplexity.ai/  (Ctrl+C to stop)');
    const stop = () => void srv.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (err) {
    console.error(String(err instanceof Error ? err.message : err));
    process.exit(1);
  }
}
